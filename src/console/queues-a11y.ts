/**
 * What the console adds to Bull Board's page (its UI is a bundle we do not build): a stylesheet for
 * the contrast its colours miss, and a small script that names its unnamed icon buttons, its logo
 * and its worker badges, so axe-core finds no serious violation (test/console/queues-browser.test.ts).
 * Both are files of the console ('self' in the page's policy), linked into Bull Board's HTML as it
 * is sent. They lean on Bull Board 9.4's markup (class name prefixes, the header's order of
 * buttons): a new version of it is checked by that test.
 */
export const QUEUES_CSS_PATH = '/static/queues.css';
export const QUEUES_JS_PATH = '/static/queues-a11y.js';

// Amber #d97706 on white is 3.2:1; #92400e is 7.1:1. The shortcut hints' grey likewise.
export const QUEUES_CSS = `[class^="workersBadge-"], [class*=" workersBadge-"] { color: #92400e !important; }
kbd { color: #1f2937 !important; background: #ffffff !important; }
`;

export const QUEUES_JS = `(() => {
  // The header's icon buttons, in Bull Board's order (the docs link has its own name).
  const HEADER = ['Redis details', 'Bull Board docs', 'Full screen', 'Settings', 'Links'];
  const named = (el) => (el.getAttribute('aria-label') || el.getAttribute('title') || el.textContent || '').trim() !== '';
  const fix = () => {
    document.querySelectorAll('ul[class^="actions-"] > li').forEach((li, i) => {
      const button = li.querySelector('button');
      if (button && !named(button)) button.setAttribute('aria-label', HEADER[i] || 'Action');
    });
    document.querySelectorAll('button[aria-haspopup="menu"]').forEach((button) => {
      if (!named(button)) button.setAttribute('aria-label', 'Queue actions');
    });
    document.querySelectorAll('button').forEach((button) => {
      if (!named(button)) button.setAttribute('aria-label', 'Action');
    });
    // A badge whose label does not hold its visible text: the text first, then what it means.
    document.querySelectorAll('[class^="workersBadge-"], [class*=" workersBadge-"]').forEach((badge) => {
      const text = (badge.textContent || '').trim();
      const label = badge.getAttribute('aria-label') || '';
      if (text !== '' && !label.includes(text)) badge.setAttribute('aria-label', text + ': ' + label);
    });
    document.querySelectorAll('svg[role="img"]').forEach((svg) => {
      if (!svg.getAttribute('aria-label') && !svg.querySelector('title')) svg.setAttribute('aria-label', 'Bull Board');
    });
  };
  // Bull Board draws (and redraws) with React: name what each render adds.
  new MutationObserver(fix).observe(document.documentElement, { childList: true, subtree: true });
  fix();
})();
`;

/** Links the two files into Bull Board's page, before its own stylesheet ends the head. */
export function withQueuesA11y(html: string): string {
  const links = `<link href="${QUEUES_CSS_PATH}" rel="stylesheet"><script defer src="${QUEUES_JS_PATH}"></script>`;
  return html.includes('</head>') ? html.replace('</head>', `${links}</head>`) : html;
}
