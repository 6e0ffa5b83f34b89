/** The plain-text part of the digest: everything the HTML says, charts as block-character lines. */
import { stars } from '../util/format.ts';
import type { DigestCharts } from './charts.ts';
import { compSection, sentimentSection } from './comps-sentiment.ts';
import {
  campaignBook,
  campaignName,
  dayNote,
  FOOTNOTES,
  factor,
  keywordMoveText,
  pairName,
  plural,
  QUIET_LINE,
  rank,
  rating,
  reviewWhen,
  revisionSummary,
  revisionText,
  salesMoverText,
  silencedLine,
} from './format.ts';
import { salesTable, tableLines, titlesTable, weekOf } from './sales-table.ts';
import type { DigestFigures } from './types.ts';

/** Lists longer than this end with "and N more". */
export const LIST_LIMIT = 10;

function limited<T>(items: readonly T[], line: (item: T) => string, limit = LIST_LIMIT): string[] {
  const out = items.slice(0, limit).map((item) => `  - ${line(item)}`);
  if (items.length > limit) out.push(`  … and ${items.length - limit} more`);
  return out;
}

function salesLines(f: DigestFigures, charts: DigestCharts): string[] {
  const s = f.sales;
  if (s.status === 'off') return [];
  const out = [`SALES — ${f.dayLabel}`];
  if (s.status === 'unavailable')
    return [...out, `  Sales data unavailable (${s.reason}). No figures are shown rather than zeros.`, ''];
  if (s.totals.length === 0)
    out.push(`  No data: the API returned no sales figures for ${s.dates[0]} to ${f.day}.`);
  // The headline totals first, one table per currency.
  for (const t of s.totals) {
    out.push(...tableLines(salesTable(f.dayLabel, t.currency, t.yesterday, weekOf(t)), '  '));
    const chart = charts.royalties.get(t.currency);
    if (chart !== undefined) out.push(`  Royalties ${s.dates[0]}..${f.day}: ${chart.text}`);
    out.push('');
  }
  if (s.missingYesterday.length > 0) {
    out.push(`  No data for ${f.dayLabel} (not 0 — the API returned no figures):`);
    out.push(...limited(s.missingYesterday, (p) => `${p.asin} ${p.marketplace}`, 20));
  }
  if (s.pairs.length > 0) {
    const pairs = s.pairs.map((p) => ({ ...p, name: pairName(p, p.title) }));
    out.push('  By title:', ...tableLines(titlesTable(f.dayLabel, pairs), '  '));
  }
  if (s.movers.length > 0)
    out.push(
      '',
      '  Sales movers (vs the daily average of the 7 days before):',
      ...limited(s.movers, salesMoverText),
    );
  if (s.revisions.length > 0) {
    out.push('', '  Revisions since the last digest:', `  ${revisionSummary(s.revisionTotals)}`);
    out.push(...limited(s.revisions, revisionText, 30));
  }
  return [...out, ''];
}

function rankLines(f: DigestFigures, charts: DigestCharts): string[] {
  const out: string[] = [];
  if (f.bsr.books.length > 0) {
    out.push('BEST-SELLER RANK (median of the local day vs the day before; up is better)');
    if (f.bsr.movers.length === 0) out.push('  No BSR moves of ×1.25 or more.');
    for (const line of f.bsr.movers) {
      out.push(
        `  - ${pairName(line, line.title)}: ${rank(line.dayBeforeMedian)} → ${rank(line.yesterdayMedian)} (${factor(line.change ?? 0)})`,
      );
    }
    for (const line of f.bsr.books) {
      const chart = charts.bsr.get(`${line.asin}|${line.marketplace}`);
      if (chart !== undefined)
        out.push(`    ${line.asin} ${line.marketplace} ${chart.text} ${rank(line.yesterdayMedian)}`);
    }
    out.push('');
  }
  const k = f.keywords;
  if (k.tracked > 0) {
    out.push(`KEYWORD RANKS (${plural(k.tracked, 'tracked keyword')}, vs the last digest)`);
    if (k.baseline) out.push('  First digest: ranks recorded; moves are reported from the next digest on.');
    else if (k.movers.length + k.entered.length + k.left.length === 0)
      out.push('  No keyword moves worth reporting.');
    if (k.movers.length > 0) out.push('  Moved:', ...limited(k.movers, keywordMoveText));
    if (k.entered.length > 0) out.push('  Now ranked:', ...limited(k.entered, keywordMoveText, 5));
    if (k.left.length > 0) out.push('  No longer ranked:', ...limited(k.left, keywordMoveText, 5));
    out.push('');
  }
  return out;
}

const SHORT_INVITES =
  'no rate: more reviews than invites on record, some readers were invited outside shelfwatch';

function reviewLines(f: DigestFigures): string[] {
  const out: string[] = [];
  const r = f.reviews;
  if (f.arc.length === 0) return out;
  const since = r.since === 'last_digest' ? 'since the last digest' : `published ${f.dayLabel}`;
  out.push(
    `NEW REVIEWS ${since}: ${r.items.length}${r.items.length > 0 ? `, average ${rating(r.averageRating)}` : ''}`,
  );
  out.push(
    ...limited(r.items, (item) => {
      const book = item.title === null ? item.asin : `“${item.title}” (${item.asin})`;
      return `${stars(item.rating)} ${item.rating}/5 on ${item.platform} — ${book}, ${campaignName(item)}, ${reviewWhen(item.publishedAt, f.timeZone)}`;
    }),
  );
  if (r.unpolled.length > 0) out.push(`  Not polled yet: ${r.unpolled.join(', ')}`);
  out.push('', 'ARC CAMPAIGNS (invites vs reviews)');
  for (const c of f.arc) {
    const invites = c.invites === null ? 'invites not recorded' : `${plural(c.invites, 'reader')} invited`;
    const reviews = c.reviews === null ? 'reviews: no data yet' : plural(c.reviews, 'review');
    const rate = c.invitesShort
      ? ` (${SHORT_INVITES})`
      : c.ratePct === null
        ? ''
        : ` (${Math.round(c.ratePct)}%)`;
    const avg = c.averageRating === null ? '' : `, average ${rating(c.averageRating)}`;
    out.push(`  - ${campaignName(c)}${campaignBook(c)}: ${invites}, ${reviews}${rate}${avg}`);
  }
  return [...out, ''];
}

/** A text heading in capitals like the others, its parenthesised note as written: "SALES (note)". */
function capsHeading(heading: string): string {
  const note = heading.indexOf(' (');
  return note < 0 ? heading.toUpperCase() : heading.slice(0, note).toUpperCase() + heading.slice(note);
}

/** "Your book vs its comps" and the review sentiment: a heading, a line per book, its details indented. */
function bookSectionLines(f: DigestFigures): string[] {
  const out: string[] = [];
  for (const section of [compSection(f.comps), sentimentSection(f.sentiment)]) {
    if (section === null) continue;
    out.push(capsHeading(section.heading));
    for (const [line, ...details] of section.items)
      out.push(`  - ${line}`, ...details.map((d) => `      ${d}`));
    out.push('');
  }
  return out;
}

export function renderText(f: DigestFigures, charts: DigestCharts): string {
  const lines = [
    `Daily digest for ${f.workspace} — ${f.dayLabel} ${f.day.slice(0, 4)} (${f.timeZone})${dayNote(f)}`,
    '',
  ];
  if (f.quiet) lines.push(QUIET_LINE, '');
  lines.push(...salesLines(f, charts), ...rankLines(f, charts), ...bookSectionLines(f), ...reviewLines(f));
  const silenced = silencedLine(f);
  if (silenced !== null) lines.push(silenced, '');
  lines.push('--', ...FOOTNOTES.map((note) => `${note}`));
  return `${lines.join('\n')}\n`;
}
