/** The rendered digest: subject, plain text and HTML from one set of figures and charts. */

import { stripBidi } from '../util/bidi.ts';
import { escapeHtml } from '../util/html.ts';
import { oneLine } from '../util/one-line.ts';
import type { DigestCharts } from './charts.ts';
import { subjectOf } from './format.ts';
import { renderHtml } from './template-html.ts';
import { renderText } from './template-text.ts';
import type { DigestFigures, KeywordMove } from './types.ts';

export { escapeHtml, subjectOf };

export interface RenderedDigest {
  subject: string;
  text: string;
  html: string;
}

/**
 * Book titles (from the API) and keywords are shown inside a line of the digest: a line break in
 * one must not start a line of its own in the text part.
 */
function oneLineNames(f: DigestFigures): DigestFigures {
  const title = <T extends { title: string | null }>(item: T): T => ({
    ...item,
    title: item.title === null ? null : oneLine(item.title),
  });
  const keyword = (m: KeywordMove): KeywordMove => ({ ...m, keyword: oneLine(m.keyword) });
  const { keywords: k, reviews: r } = f;
  return {
    ...f,
    sales: f.sales.status === 'ok' ? { ...f.sales, pairs: f.sales.pairs.map(title) } : f.sales,
    bsr: { books: f.bsr.books.map(title), movers: f.bsr.movers.map(title) },
    keywords: {
      ...k,
      movers: k.movers.map(keyword),
      entered: k.entered.map(keyword),
      left: k.left.map(keyword),
    },
    reviews: { ...r, items: r.items.map(title) },
    comps: f.comps.map((line) => ({
      ...line,
      title: oneLine(line.title),
      comps: line.comps.map((c) => ({ ...c, title: oneLine(c.title) })),
    })),
    sentiment: f.sentiment.map((line) => ({ ...line, title: oneLine(line.title) })),
  };
}

export function renderDigest(figures: DigestFigures, charts: DigestCharts): RenderedDigest {
  const shown = oneLineNames(figures);
  const subject = subjectOf(shown);
  const [text, html] = [renderText(shown, charts), renderHtml(shown, charts, subject)];
  // Every way the digest leaves (SMTP, the outbox, --out) starts here: no bidi control in any part.
  return { subject: stripBidi(subject), text: stripBidi(text), html: stripBidi(html) };
}
