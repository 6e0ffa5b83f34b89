import type { MuteWindowConfig } from '../config/mute-windows.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { Alert } from '../model/alert.ts';
import { openMuteWindows } from './mute-windows.ts';
import { type AuthorLookup, compileMutings, type SilenceMatch } from './silence.ts';
import type { SilenceStore } from './store.ts';

/**
 * Where delivery asks "may this go out now?": the silences in Redis (read once per flush, so one
 * set from the CLI reaches every worker at its next flush) and the config's open mute windows.
 */
export class SilenceGate {
  constructor(
    readonly store: SilenceStore,
    private readonly windows: readonly MuteWindowConfig[],
    private readonly authorOf: AuthorLookup,
    private readonly onSilenced: (channelId: string, count: number) => void = () => {},
  ) {}

  /**
   * Splits a flush's alerts into those to send and those to keep back; the kept ones are recorded
   * (once per alert and channel) and counted. Nothing about them is sent later: a condition that
   * still fires after the silence alerts again only through its rule's repeat.
   */
  async partition(alerts: readonly Alert[], channelId: string, nowMs: number): Promise<Alert[]> {
    const active = await this.store.active(nowMs);
    const mutings = [
      ...active.map((s) => ({ matchers: s.matchers, match: { id: s.id, reason: s.reason } })),
      ...openMuteWindows(this.windows, nowMs),
    ];
    if (mutings.length === 0) return [...alerts];
    const match = compileMutings(mutings, this.authorOf);
    const send: Alert[] = [];
    const silenced: { alert: Alert; match: SilenceMatch }[] = [];
    for (const alert of alerts) {
      const found = match(alert, channelId);
      if (found === undefined) send.push(alert);
      else silenced.push({ alert, match: found });
    }
    const added = await this.store.record(silenced, channelId, nowMs);
    this.onSilenced(channelId, added);
    return send;
  }
}

/** `workspaces[].books[].author`, the same lookup routes use for `match.author`. */
export function configAuthors(config: ShelfwatchConfig): AuthorLookup {
  const authorOf = new Map<string, string>();
  for (const ws of config.workspaces) {
    for (const book of ws.books)
      if (book.author !== undefined) authorOf.set(`${ws.id}/${book.asin}`, book.author);
  }
  return (workspace, asin) => authorOf.get(`${workspace}/${asin}`);
}
