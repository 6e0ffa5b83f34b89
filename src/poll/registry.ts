import type { ShelfwatchConfig, WorkspaceConfig } from '../config/schema.ts';
import type { RuleConfig } from '../rules/config.ts';
import { allowedKeywordCadenceMs, chooseKeywordSource } from './keyword-source.ts';
import {
  bookTargetId,
  estimatedCostPerPoll,
  keywordsTargetId,
  MAX_CADENCE_MS,
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
      ...(campaign.name === undefined ? {} : { campaignName: campaign.name }),
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
  targets.forEach(keywordSourceOf(ws, targets));
  return targets;
}

/**
 * `auto` compares the two at the fixed keywords cadence, else at the cadence the budget allows
 * (keyword-source.ts): a list takes the series at any cadence of an hour or more, a `{top: N}`
 * selection once the budget stretches keywords past ~1 h 03 min (its daily discovery costs 30
 * requests a month). `plan` shows both costs at the planned cadence.
 */
function keywordSourceOf(
  ws: WorkspaceConfig,
  targets: readonly WatchTarget[],
): (target: WatchTarget) => void {
  const cadenceMs =
    ws.cadence.keywords ??
    allowedKeywordCadenceMs(
      targets.map((t) => ({
        cost: estimatedCostPerPoll(t),
        usefulCadenceMs: t.overrideCadenceMs ?? USEFUL_CADENCE_MS[t.kind],
        maxCadenceMs: MAX_CADENCE_MS[t.kind],
      })),
      ws.plan.perMonth,
      ws.reserve,
      { usefulCadenceMs: USEFUL_CADENCE_MS.keywords, maxCadenceMs: MAX_CADENCE_MS.keywords },
    );
  return (target) => {
    if (target.kind !== 'keywords') return;
    target.source = chooseKeywordSource(ws.keywordSource, cadenceMs, 'top' in target.keywords);
  };
}

function override(ms: number | undefined): { overrideCadenceMs?: number } {
  return ms === undefined ? {} : { overrideCadenceMs: ms };
}

/** Which targets exist and which rules apply where, as a poll asks it. */
export interface TargetRegistry {
  target(workspace: string, targetId: string): WatchTarget | undefined;
  rules(workspace: string): RuleConfig[];
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
