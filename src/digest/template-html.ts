/**
 * The HTML part: inline CSS only (mail clients drop <style> blocks), built with the `html` builder so
 * every interpolated value is escaped (titles, keywords and campaign ids come from the API and the
 * public), and images by `cid:` with alt text.
 */
import { bookUrl } from '../channels/render/amazon.ts';
import { EMAIL_STYLE as S } from '../channels/render/email-style.ts';
import { safeUrl } from '../channels/render/plain.ts';
import { stars } from '../util/format.ts';
import { html, type SafeHtml } from '../util/html.ts';
import type { DigestChart, DigestCharts } from './charts.ts';
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
import { type SalesTable, salesTable, titlesTable, weekOf } from './sales-table.ts';
import { LIST_LIMIT } from './template-text.ts';
import type { DigestFigures, KeywordMove } from './types.ts';

function img(chart: DigestChart | undefined): SafeHtml {
  if (chart === undefined) return html``;
  return html`<img src="cid:${chart.cid}" alt="${chart.alt}" width="${chart.width}" height="${chart.height}" style="${S.chart}">`;
}

function list<T>(items: readonly T[], text: (item: T) => string, limit = LIST_LIMIT): SafeHtml {
  const rows = items.slice(0, limit).map((item) => html`<li style="${S.li}">${text(item)}</li>`);
  if (items.length > limit) rows.push(html`<li style="${S.li}">… and ${items.length - limit} more</li>`);
  return html`<ul style="${S.ul}">${rows}</ul>`;
}

function cells(values: readonly string[], style: string = S.td): SafeHtml[] {
  return values.map((v) => html`<td style="${style}">${v}</td>`);
}

/** The book's store page on its marketplace, checked as an http(s) URL; none for an unknown store. */
function storeUrl(pair: { asin: string; marketplace: string }): string | undefined {
  return safeUrl(bookUrl(pair.asin, pair.marketplace));
}

/** A book's name linked to its store page (both escaped), or just the name. */
function bookCell(name: string, url: string | undefined, style: string = S.td): SafeHtml {
  if (url === undefined) return html`${cells([name], style)}`;
  return html`<td style="${style}"><a href="${url}" style="${S.link}">${name}</a></td>`;
}

/** Labels left, figures right-aligned in their columns; labels found in `links` link to that page. */
function tableHtml(table: SalesTable, links: ReadonlyMap<string, string | undefined> = new Map()): SafeHtml {
  const head = table.head.map(
    (h, i) => html`<th style="${S.th}${i === 0 ? '' : ';text-align:right'}">${h}</th>`,
  );
  const rows = table.rows.map(
    ([label, ...figures]) =>
      html`<tr>${bookCell(label ?? '', links.get(label ?? ''))}${cells(figures, S.num)}</tr>`,
  );
  return html`<table style="${S.table};margin-top:8px"><tr>${head}</tr>${rows}</table>`;
}

function salesHtml(f: DigestFigures, charts: DigestCharts): SafeHtml {
  const s = f.sales;
  if (s.status === 'off') return html``;
  const out: SafeHtml[] = [html`<h2 style="${S.h2}">Sales — ${f.dayLabel}</h2>`];
  if (s.status === 'unavailable') {
    return html`${out}<p style="${S.warn}">Sales data unavailable (${s.reason}). No figures are shown rather than zeros.</p>`;
  }
  if (s.totals.length === 0)
    out.push(
      html`<p style="${S.warn}">No data: the API returned no sales figures for ${s.dates[0] ?? ''} to ${f.day}.</p>`,
    );
  // The headline totals first, one table per currency.
  for (const t of s.totals) {
    out.push(tableHtml(salesTable(f.dayLabel, t.currency, t.yesterday, weekOf(t))));
    out.push(img(charts.royalties.get(t.currency)));
  }
  if (s.missingYesterday.length > 0) {
    const missing = s.missingYesterday.map((p) => `${p.asin} ${p.marketplace}`).join(', ');
    out.push(
      html`<p style="${S.warn}">No data for ${f.dayLabel} (not 0 — the API returned no figures): ${missing}</p>`,
    );
  }
  if (s.pairs.length > 0) {
    const pairs = s.pairs.map((p) => ({ ...p, name: pairName(p, p.title) }));
    const links = new Map(pairs.map((p) => [p.name, storeUrl(p)]));
    out.push(
      html`<p style="${S.subhead}"><b>By title</b></p>${tableHtml(titlesTable(f.dayLabel, pairs), links)}`,
    );
  }
  if (s.movers.length > 0)
    out.push(
      html`<p style="${S.subhead}"><b>Sales movers</b> (vs the daily average of the 7 days before)</p>${list(s.movers, salesMoverText)}`,
    );
  if (s.revisions.length > 0) {
    out.push(
      html`<p style="${S.subhead}"><b>Revisions since the last digest</b><br>${revisionSummary(s.revisionTotals)}</p>`,
    );
    out.push(list(s.revisions, revisionText, 30));
  }
  return html`${out}`;
}

function ranksHtml(f: DigestFigures, charts: DigestCharts): SafeHtml {
  const out: SafeHtml[] = [];
  if (f.bsr.books.length > 0) {
    out.push(
      html`<h2 style="${S.h2}">Best-seller rank</h2><p style="${S.muted}">Median of the local day vs the day before; charts: two days hourly, up is better.</p>`,
    );
    if (f.bsr.movers.length === 0) out.push(html`<p>No BSR moves of ×1.25 or more.</p>`);
    else
      out.push(
        list(
          f.bsr.movers,
          (l) =>
            `${pairName(l, l.title)}: ${rank(l.dayBeforeMedian)} → ${rank(l.yesterdayMedian)} (${factor(l.change ?? 0)})`,
        ),
      );
    // One block a book, its name and rank above its chart: side by side they need 600 px.
    const blocks = f.bsr.books
      .filter((l) => charts.bsr.has(`${l.asin}|${l.marketplace}`))
      .map((l) => {
        const name = pairName(l, l.title);
        const url = storeUrl(l);
        const label =
          url === undefined ? html`${name}` : html`<a href="${url}" style="${S.link}">${name}</a>`;
        return html`<div style="${S.chartBlock}"><p style="${S.chartLabel}">${label} · <b>${rank(l.yesterdayMedian)}</b></p>${img(charts.bsr.get(`${l.asin}|${l.marketplace}`))}</div>`;
      });
    out.push(...blocks);
  }
  const k = f.keywords;
  if (k.tracked > 0) {
    out.push(
      html`<h2 style="${S.h2}">Keyword ranks</h2><p style="${S.muted}">${plural(k.tracked, 'tracked keyword')}, compared with the last digest.</p>`,
    );
    if (k.baseline)
      out.push(html`<p>First digest: ranks recorded; moves are reported from the next digest on.</p>`);
    else if (k.movers.length + k.entered.length + k.left.length === 0)
      out.push(html`<p>No keyword moves worth reporting.</p>`);
    const moves: [string, readonly KeywordMove[], number][] = [
      ['Moved', k.movers, LIST_LIMIT],
      ['Now ranked', k.entered, 5],
      ['No longer ranked', k.left, 5],
    ];
    for (const [label, items, limit] of moves)
      if (items.length > 0)
        out.push(html`<p style="${S.subhead}"><b>${label}</b></p>${list(items, keywordMoveText, limit)}`);
  }
  return html`${out}`;
}

function reviewsHtml(f: DigestFigures): SafeHtml {
  if (f.arc.length === 0) return html``;
  const r = f.reviews;
  const since = r.since === 'last_digest' ? 'since the last digest' : `published ${f.dayLabel}`;
  const average = r.items.length > 0 ? `, average ${rating(r.averageRating)}` : '';
  const out: SafeHtml[] = [html`<h2 style="${S.h2}">New reviews ${since}: ${r.items.length}${average}</h2>`];
  if (r.items.length > 0) {
    out.push(
      list(r.items, (item) => {
        const book = item.title === null ? item.asin : `“${item.title}” (${item.asin})`;
        return `${stars(item.rating)} ${item.rating}/5 on ${item.platform} — ${book}, ${campaignName(item)}, ${reviewWhen(item.publishedAt, f.timeZone)}`;
      }),
    );
  }
  if (r.unpolled.length > 0)
    out.push(html`<p style="${S.muted}">Not polled yet: ${r.unpolled.join(', ')}</p>`);
  const head = ['Campaign', 'Invited', 'Reviews', 'Rate', 'Average'].map(
    (h) => html`<th style="${S.th}">${h}</th>`,
  );
  const rows = f.arc.map((c) => {
    const name = `${campaignName(c)}${campaignBook(c)}`;
    const figures = [
      c.invites === null ? 'not recorded' : String(c.invites),
      c.reviews === null ? 'no data yet' : String(c.reviews),
      c.invitesShort ? 'n/a¹' : c.ratePct === null ? '—' : `${Math.round(c.ratePct)}%`,
      rating(c.averageRating),
    ];
    return html`<tr>${cells([name])}${cells(figures, S.num)}</tr>`;
  });
  const short = f.arc.some((c) => c.invitesShort)
    ? html`<p style="${S.muted}">¹ More reviews than invites on record: some readers were invited outside shelfwatch, so no rate is given.</p>`
    : '';
  return html`${out}<h2 style="${S.h2}">ARC campaigns: invites vs reviews</h2><table style="${S.table}"><tr>${head}</tr>${rows}</table>${short}`;
}

/** The comps and sentiment sections: each book a list item, its details a nested list. */
function bookSectionsHtml(f: DigestFigures): SafeHtml {
  const out: SafeHtml[] = [];
  for (const section of [compSection(f.comps), sentimentSection(f.sentiment)]) {
    if (section === null) continue;
    const items = section.items.map(([line = '', ...details]) => {
      const nested = details.length === 0 ? '' : list(details, (d) => d, details.length);
      return html`<li style="${S.li}">${line}${nested}</li>`;
    });
    out.push(html`<h2 style="${S.h2}">${section.heading}</h2><ul style="${S.ul}">${items}</ul>`);
  }
  return html`${out}`;
}

export function renderHtml(f: DigestFigures, charts: DigestCharts, subject: string): string {
  const quiet = f.quiet ? html`<p style="${S.quiet}">${QUIET_LINE}</p>` : '';
  const silencedText = silencedLine(f);
  const silenced = silencedText === null ? '' : html`<p style="${S.muted}">${silencedText}</p>`;
  const notes = FOOTNOTES.map((n) => html`<p style="${S.muted};margin:4px 0">${n}</p>`);
  const when = `${f.dayLabel} ${f.day.slice(0, 4)} · ${f.timeZone}${dayNote(f)}`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${subject}</title></head><body style="${S.body}"><div style="${S.page}"><div style="${S.sheet}"><h1 style="${S.h1}">Daily digest for ${f.workspace}</h1><p style="${S.muted};margin:0">${when}</p>${quiet}${salesHtml(f, charts)}${ranksHtml(f, charts)}${bookSectionsHtml(f)}${reviewsHtml(f)}${silenced}<hr style="${S.rule}">${notes}</div></div></body></html>`
    .value;
}
