/**
 * The compact digest for chat channels (Slack, Discord, Teams): the totals, the movers (sales,
 * BSR, keywords) and the new reviews, worded as the full digest words them (`format.ts`), with no
 * charts or tables. Each chat channel's renderer (`channels/render/digest-*.ts`) lays it out.
 */
import type { DigestLine, DigestMessage, DigestSection } from '../channels/digest-message.ts';
import { groupDigits, money, stars } from '../util/format.ts';
import {
  factor,
  keywordMoveText,
  pairName,
  plural,
  QUIET_LINE,
  rank,
  rating,
  salesMoverText,
  silencedLine,
} from './format.ts';
import type { DigestFigures } from './types.ts';

/** Lines per section; the full report (email) has the rest. */
export const COMPACT_LINES = 5;

function section(heading: string, lines: DigestLine[]): DigestSection {
  return { heading, lines: lines.slice(0, COMPACT_LINES), more: Math.max(0, lines.length - COMPACT_LINES) };
}

function totals(f: DigestFigures): DigestSection {
  const s = f.sales;
  if (s.status === 'unavailable')
    return section('Totals', [{ label: 'Sales', value: `unavailable (${s.reason})` }]);
  if (s.status === 'off') return section('Totals', []);
  const lines = s.totals.map((t): DigestLine => {
    const day =
      t.yesterday === null
        ? 'no data'
        : `${money(t.yesterday.royalties, t.currency)} royalties, ${plural(t.yesterday.units, 'unit')}${t.yesterday.provisional ? ' †' : ''}`;
    const week = t.week === null ? '' : `; 7 days ${money(t.week.royalties, t.currency)}`;
    return { label: `${f.dayLabel} (${t.currency})`, value: `${day}${week}` };
  });
  return section('Totals', lines);
}

function movers(f: DigestFigures): DigestLine[] {
  const out: DigestLine[] = [];
  if (f.sales.status === 'ok')
    for (const m of f.sales.movers) {
      const title = f.sales.pairs.find((p) => p.asin === m.asin && p.marketplace === m.marketplace)?.title;
      // salesMoverText starts with the pair; the label names it by title instead.
      const value = salesMoverText(m).slice(`${m.asin} ${m.marketplace}: `.length);
      out.push({ label: pairName(m, title ?? null), value });
    }
  for (const line of f.bsr.movers)
    out.push({
      label: pairName(line, line.title),
      value: `BSR ${rank(line.dayBeforeMedian)} → ${rank(line.yesterdayMedian)} (${factor(line.change ?? 0)})`,
    });
  for (const m of [...f.keywords.movers, ...f.keywords.entered, ...f.keywords.left]) {
    const text = keywordMoveText(m);
    const cut = text.lastIndexOf('): ');
    out.push({ label: text.slice(0, cut + 1), value: text.slice(cut + 3) });
  }
  return out;
}

function reviews(f: DigestFigures): DigestSection {
  const r = f.reviews;
  const heading =
    r.items.length === 0
      ? 'New reviews'
      : `New reviews: ${groupDigits(r.items.length)}, average ${rating(r.averageRating)}`;
  return section(
    heading,
    r.items.map((item) => ({
      label: item.title === null ? item.asin : `“${item.title}” (${item.asin})`,
      value: `${stars(item.rating)} ${item.rating}/5 on ${item.platform}`,
    })),
  );
}

/**
 * `fullReport` says where the full digest is for this recipient (their email, or the command that
 * writes it), since a chat message has no charts or tables.
 */
export function compactDigest(
  f: DigestFigures,
  subject: string,
  options: { messageId: string; fullReport: string; reportUrl?: string },
): DigestMessage {
  const sections = [totals(f), section('Movers', movers(f)), reviews(f)];
  const silenced = silencedLine(f);
  const footer = [`Times in ${f.timeZone}.`, options.fullReport, silenced ?? '']
    .filter((s) => s !== '')
    .join(' ');
  return {
    messageId: options.messageId,
    title: subject,
    sections,
    ...(f.quiet ? { quietLine: QUIET_LINE } : {}),
    ...(options.reportUrl === undefined ? {} : { reportUrl: options.reportUrl }),
    footer,
  };
}
