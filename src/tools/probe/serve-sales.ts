/**
 * Sales rows as a dialect serves them, beyond what the assumed contract sends: each day's
 * final/provisional state, and, where asked (`todayWithoutFigures`), no figure yet for the day in progress.
 */
import type { CompiledContract, EndpointName } from '../../api/tooling.ts';
import { DAY_MS } from '../../util/time-units.ts';
import type { SimDialectOptions } from './serve-query.ts';

/** A sales day stays provisional for 14 days (today and the 13 before), as the world's figures do (`src/sim/world/sales.ts`). */
const PROVISIONAL_MS = 14 * DAY_MS;

/** The canonical items of an answer, sales rows completed (the others as they are). */
export function salesRows(contract: CompiledContract, options: SimDialectOptions) {
  const specs = contract.source.endpoints?.sales?.fields ?? {};
  // The canonical members (royalties, ad_spend) of the money fields that can say "no figure".
  const pending = options.todayWithoutFigures
    ? contract.nodes.sales.fields
        .filter((f) => {
          const spec = specs[f.name as keyof typeof specs];
          return f.kind === 'money' && typeof spec === 'object' && spec.noFigure !== undefined;
        })
        .map((f) => f.canonical.join('.'))
    : [];
  return (endpoint: EndpointName, items: unknown[], nowMs: number): unknown[] => {
    if (endpoint !== 'sales') return items;
    // The simulator's clock, never the machine's: a sim started at another day or speed has its own today.
    // The day 14 days back is the first final one (the world's figures are final from age 14).
    const lastFinal = new Date(nowMs - PROVISIONAL_MS).toISOString().slice(0, 10);
    const today = new Date(nowMs).toISOString().slice(0, 10);
    return items.map((row) => {
      const out: Record<string, unknown> = {
        ...(row as object),
        final: (row as { date: string }).date <= lastFinal,
      };
      if (out.date === today) for (const member of pending) out[member] = null;
      return out;
    });
  };
}
