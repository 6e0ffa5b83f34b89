/**
 * The one style table of the emails shelfwatch sends: the alert email (`email.ts`) and the daily
 * digest (`digest/template-html.ts`) take every inline style from here, so both read as one product
 * and a colour changes in one place. Inline styles only: mail clients drop `<style>` blocks. The
 * palette is the console's (`console/style.ts`: the same page background, ink and muted grey).
 */

// Unquoted (valid CSS): a quote would reach the attribute as an entity.
const FONT = '-apple-system,BlinkMacSystemFont,Segoe UI,Roboto,Helvetica,Arial,sans-serif';
const LINE = '#d0d7de';
const MUTED = 'color:#656d76';

/** Severity colours of an alert card's edge and label (resolved: green, whatever it was). */
export const SEVERITY_COLOR = {
  critical: '#b42318',
  warning: '#b54708',
  info: '#175cd3',
  resolved: '#067647',
} as const;

export const EMAIL_STYLE = {
  // The page.
  body: `margin:0;padding:8px;background:#f6f7f9;color:#1f2328;font-family:${FONT};font-size:14px;line-height:1.45`,
  page: 'max-width:680px;margin:0 auto',
  /** The digest's one sheet; an alert email's cards sit straight on the page. */
  sheet:
    'background:#ffffff;border:1px solid #d0d7de;border-radius:6px;padding:16px;overflow-wrap:break-word',
  h1: 'font-size:18px;margin:0 0 12px',
  h2: `font-size:15px;margin:20px 0 6px;border-bottom:1px solid ${LINE};padding-bottom:4px`,
  /** A bold line heading a table or list inside a section. */
  subhead: 'margin:10px 0 0',
  muted: `${MUTED};font-size:12px`,
  link: 'color:#0969da;text-decoration:none',
  strong: 'margin:0 0 12px;font-weight:600',
  rule: `border:0;border-top:1px solid ${LINE};margin:20px 0 8px`,
  // Notices.
  quiet: 'background:#ecfdf5;color:#065f46;padding:10px;border-radius:6px;margin:12px 0',
  warn: 'background:#fef3c7;color:#92400e;padding:10px;border-radius:6px;margin:8px 0',
  // Tables and lists.
  table: 'border-collapse:collapse;width:100%;font-size:13px',
  th: `text-align:left;padding:4px 6px;border-bottom:1px solid ${LINE};color:#57534e;font-weight:600`,
  td: 'padding:4px 6px;border-bottom:1px solid #eaeef2;vertical-align:top',
  num: 'padding:4px 6px;border-bottom:1px solid #eaeef2;text-align:right',
  ul: 'margin:4px 0;padding-left:20px',
  li: 'margin:2px 0',
  // Narrow screens: a chart shrinks to the column rather than widening the page.
  chart: 'display:block;border:0;max-width:100%;height:auto',
  /** A book's chart with its name and rank above it. */
  chartBlock: 'margin:10px 0;border-bottom:1px solid #eaeef2;padding-bottom:6px',
  chartLabel: 'margin:0 0 4px',
  // An alert's card: its edge and label take the severity's colour.
  card: `background:#ffffff;border:1px solid ${LINE};border-radius:6px;padding:12px 16px;margin:0 0 12px`,
  cardLabel: 'margin:0 0 4px;font-size:12px;text-transform:uppercase;letter-spacing:0.04em',
  cardTitle: 'margin:0 0 8px;font-size:15px;font-weight:600',
  facts: 'border-collapse:collapse;font-size:14px',
  factName: `padding:2px 12px 2px 0;${MUTED};vertical-align:top;white-space:nowrap`,
  factValue: 'padding:2px 0',
  note: `margin:8px 0 0;${MUTED};font-style:italic`,
  quote: `margin:8px 0 0;padding:8px 12px;background:#f6f8fa;border-left:3px solid ${LINE}`,
  quoteTitle: 'margin:0 0 4px;font-weight:600',
  links: 'margin:8px 0 0',
  /** The links under the cards (the console's pages of the alerts). */
  footerLinks: 'margin:16px 0 0;font-size:13px',
} as const;
