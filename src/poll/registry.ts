import type { ShelfwatchConfig, WorkspaceConfig } from '../config/schema.ts';
import type { RuleConfig } from '../rules/config.ts';
import { chooseKeywordSource } from './keyword-source.ts';
import type { TargetRegistry } from './processor.ts';
import {
  bookTargetId,
  keywordsTargetId,
  reviewsTargetId,
  salesTargetId,
  USEFUL_CADENCE_MS,
  type WatchTarget,
} from './targets.ts';

/** Every poll target one workspace's config asks for: a book and its keywords per marketplace, etc. */
export function targetsOfWorkspace(ws: WorkspaceConfig): WatchTarget[] {
  const targets: WatchTarget[] = [];
  const ref = (kind: WatchTarget['kind'], id: string) => ({ workspace: ws.id, kind, id });
  for (const book of ws.books) {
    for (const marketplace of book.marketplaces) {
      const author = book.author === undefined ? {} : { author: book.author };
      targets.push({
        ref: ref('book', bookTargetId(book.asin, marketplace)),
        kind: 'book',
        asin: book.asin,
        marketplace,
        ...author,
        ...override(ws.cadence.book),
      });
      targets.push({
        ref: ref('keywords', keywordsTargetId(book.asin, marketplace)),
        kind: 'keywords',
        asin: book.asin,
        marketplace,
        keywords: book.keywords,
        source: keywordSourceOf(ws, book.keywords),
        ...author,
        ...override(ws.cadence.keywords),
      });
    }
  }
  for (const campaign of ws.campaigns) {
    targets.push({
      ref: ref('reviews', reviewsTargetId(campaign.id)),
      kind: 'reviews',
      campaignId: campaign.id,
      ...override(ws.cadence.reviews),
    });
  }
  if (ws.sales !== false) {
    for (const marketplace of ws.sales.marketplaces) {
      targets.push({
        ref: ref('sales', salesTargetId(marketplace)),
        kind: 'sales',
        marketplace,
        ...override(ws.cadence.sales),
      });
    }
  }
  return targets;
}

/**
 * `auto` compares the two at the keywords cadence the config fixes, else at the useful one (an
 * hour): a list then takes the series (equal cost, every hour judged), a `{top: N}` selection the
 * snapshots (its daily discovery makes the series 4% dearer at one poll an hour). The planner's
 * stretched cadences are not known here; `plan` shows both costs at them (planner.ts).
 */
function keywordSourceOf(ws: WorkspaceConfig, keywords: { list: string[] } | { top: number }) {
  return chooseKeywordSource(
    ws.keywordSource,
    ws.cadence.keywords ?? USEFUL_CADENCE_MS.keywords,
    'top' in keywords,
  );
}

function override(ms: number | undefined): { overrideCadenceMs?: number } {
  return ms === undefined ? {} : { overrideCadenceMs: ms };
}

/** The poller's view of one loaded config: which targets exist and which rules apply where. */
export class ConfigTargetRegistry implements TargetRegistry {
  private readonly targets = new Map<string, WatchTarget>();
  private readonly rulesByWorkspace = new Map<string, RuleConfig[]>();
  readonly workspaces: ReadonlyMap<string, WorkspaceConfig>;

  constructor(config: ShelfwatchConfig) {
    this.workspaces = new Map(config.workspaces.map((ws) => [ws.id, ws]));
    for (const ws of config.workspaces) {
      for (const target of targetsOfWorkspace(ws)) this.targets.set(`${ws.id}\u0000${target.ref.id}`, target);
      this.rulesByWorkspace.set(ws.id, [...config.rules, ...ws.rules]);
    }
  }

  target(workspace: string, targetId: string): WatchTarget | undefined {
    return this.targets.get(`${workspace}\u0000${targetId}`);
  }

  rules(workspace: string): RuleConfig[] {
    return this.rulesByWorkspace.get(workspace) ?? [];
  }

  all(workspace?: string): WatchTarget[] {
    const all = [...this.targets.values()];
    return workspace === undefined ? all : all.filter((t) => t.ref.workspace === workspace);
  }
}
