/**
 * Rate-limit and request-id signals an API states in its bodies rather than its headers: the month's
 * quota as an object (`meta.quota {limit, remaining | used, resets_at}`), the rate limit with its
 * window (`meta.rateLimit {limit, period: "second"}`) and a request id beside the data
 * (`meta.requestId`). Only a place every successful answer has is taken: a member of one answer only
 * may be data. Pure.
 */
import type { RecordedAnswer } from './probe-analyse.ts';
import type { BodyLimit } from './suggest-rate.ts';

export interface BodySignals {
  quotaLimit?: string;
  quotaRemaining?: string;
  quotaUsed?: string;
  quotaReset?: { body: string; format: 'epoch_s' | 'epoch_ms' | 'rfc3339' };
  requestId?: string;
  /** The rate limit every body states, and the window beside it. */
  rate?: BodyLimit;
}

/** Every place in a body outside lists (depth 3), with its value. */
function places(body: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const visit = (value: unknown, prefix: string, depth: number) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      out.set(path, child);
      visit(child, path, depth - 1);
    }
  };
  visit(body, '', 4);
  return out;
}

const last = (path: string) => path.split('.').pop() ?? '';

/** The signals the successful answers all state in their bodies. */
export function bodySignals(answers: readonly RecordedAnswer[]): BodySignals {
  const ok = answers.filter((a) => a.status < 300 && typeof a.body === 'object' && a.body !== null);
  if (ok.length === 0) return {};
  const all = ok.map((a) => places(a.body));
  const first = all[0] ?? new Map<string, unknown>();
  // A place every answer has, with a value of the kind wanted.
  const common = (test: (path: string, value: unknown) => boolean) =>
    [...first.keys()].find((path) => all.every((p) => p.has(path) && test(path, p.get(path))));
  const inQuota = (path: string) => /quota/i.test(path);
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  const out: BodySignals = {};
  const limit = common((p, v) => inQuota(p) && /^(limit|max|total|quota)$/i.test(last(p)) && count(v));
  const remaining = common((p, v) => inQuota(p) && /^(remaining|left|available)$/i.test(last(p)) && count(v));
  const used = common((p, v) => inQuota(p) && /^(used|consumed|spent)$/i.test(last(p)) && count(v));
  const reset = common((p, v) => inQuota(p) && /reset/i.test(last(p)) && (count(v) || typeof v === 'string'));
  if (limit !== undefined) out.quotaLimit = limit;
  if (remaining !== undefined) out.quotaRemaining = remaining;
  else if (used !== undefined) out.quotaUsed = used;
  if (reset !== undefined) {
    const v = first.get(reset);
    const format = typeof v === 'string' ? 'rfc3339' : (v as number) > 1e11 ? 'epoch_ms' : 'epoch_s';
    // A reset stated as seconds from now is a minute window's, not the month's: left out.
    if (typeof v === 'string' ? !Number.isNaN(Date.parse(v)) : (v as number) > 1e8)
      out.quotaReset = { body: reset, format };
  }
  // A rate limit outside the quota, and its window in the same object.
  const inRate = (p: string) => /rate.?limit|throttl/i.test(p) && !inQuota(p);
  const rate = common((p, v) => inRate(p) && /^(limit|max|allowed)$/i.test(last(p)) && count(v));
  if (rate !== undefined) {
    const parent = rate.slice(0, Math.max(0, rate.lastIndexOf('.')));
    const window = [...first.keys()].find(
      (p) =>
        p.slice(0, Math.max(0, p.lastIndexOf('.'))) === parent &&
        /^(period|window|per|interval|unit|window_?s(ec(ond)?s?)?)$/i.test(last(p)),
    );
    out.rate = {
      limit: rate,
      value: first.get(rate),
      ...(window === undefined ? {} : { window: { path: window, value: first.get(window) } }),
    };
  }
  const id = common(
    (p, v) => /^(request|trace|correlation)_?id$/i.test(last(p)) && typeof v === 'string' && v !== '',
  );
  // The same id in every answer is not a request's id.
  if (id !== undefined && new Set(all.map((p) => p.get(id))).size === all.length) out.requestId = id;
  return out;
}
