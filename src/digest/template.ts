/** The rendered digest: subject, plain text and HTML from one set of figures and charts. */
import type { DigestCharts } from './charts.ts';
import { subjectOf } from './format.ts';
import { escapeHtml, renderHtml } from './template-html.ts';
import { renderText } from './template-text.ts';
import type { DigestFigures } from './types.ts';

export { escapeHtml, subjectOf };

export interface RenderedDigest {
  subject: string;
  text: string;
  html: string;
}

export function renderDigest(figures: DigestFigures, charts: DigestCharts): RenderedDigest {
  const subject = subjectOf(figures);
  return { subject, text: renderText(figures, charts), html: renderHtml(figures, charts, subject) };
}
