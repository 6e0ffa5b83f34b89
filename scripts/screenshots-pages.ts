/**
 * Pages that show captured chat payloads the way the apps draw them: a Block Kit look-alike for
 * Slack (header, mrkdwn sections, context) and an embed look-alike for Discord. Only the markup
 * these payloads use is drawn; every text is escaped before any markup is applied.
 */
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ESC[c] ?? c);

/** Slack mrkdwn (already &-escaped by the channel): links, *bold*, _italic_, `>` quotes, newlines. */
function mrkdwn(text: string): string {
  const html = text
    .replace(/"/g, '&quot;')
    .replace(
      /<(https?:[^|>]+)\|([^>]*)>/g,
      (_m, url: string, label: string) => `<a href="${url}">${label}</a>`,
    )
    .replace(/(^|[\s(])\*([^*\n]+)\*/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_([^_\n]+)_/g, '$1<i>$2</i>');
  return html
    .split('\n')
    .map((line) =>
      line.startsWith('>') ? `<div class="quote">${line.slice(1)}</div>` : `<div>${line || '&nbsp;'}</div>`,
    )
    .join('');
}

const FRAME = (title: string, body: string, css: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${css}</style></head><body>${body}</body></html>`;

interface Block {
  type: string;
  text?: { text: string };
  elements?: { text: string }[];
}

export function slackPage(blocks: readonly unknown[]): string {
  const parts = (blocks as Block[]).map((b) => {
    if (b.type === 'header') return `<div class="header">${esc(b.text?.text ?? '')}</div>`;
    if (b.type === 'section') return `<div class="section">${mrkdwn(b.text?.text ?? '')}</div>`;
    if (b.type === 'context')
      return `<div class="context">${(b.elements ?? []).map((e) => mrkdwn(e.text)).join(' ')}</div>`;
    return '';
  });
  const css =
    'body{margin:0;padding:20px;background:#fff;font:15px/1.46 Lato,"Noto Sans",Arial,sans-serif;color:#1d1c1d}' +
    '.msg{display:flex;gap:10px;max-width:680px}.avatar{width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center}' +
    '.name{font-weight:900}.app{font-size:10px;background:#e8e8e8;border-radius:3px;padding:1px 3px;margin-left:4px;color:#616061}.time{color:#616061;font-size:12px;margin-left:6px}' +
    '.header{font-size:18px;font-weight:900;margin:4px 0 8px}.section{margin:0 0 12px}.context{color:#616061;font-size:13px}' +
    '.quote{border-left:4px solid #ddd;padding-left:10px;color:#1d1c1d}a{color:#1264a3;text-decoration:none}';
  const body = `<div class="msg"><div class="avatar">sw</div><div><div><span class="name">shelfwatch</span><span class="app">APP</span><span class="time">14:05</span></div>${parts.join('')}</div></div>`;
  return FRAME('Slack message', body, css);
}

interface Embed {
  title: string;
  description: string;
  color: number;
  url?: string;
}

/** Discord markdown in our payloads: **bold**, `> ` quotes, escaped characters, newlines. */
function discordMd(text: string): string {
  return esc(text)
    .replace(/\\([\\*_~`|>#\-[\]()])/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
    .split('\n')
    .map((line) =>
      line.startsWith('&gt; ')
        ? `<div class="quote">${line.slice(5)}</div>`
        : `<div>${line || '&nbsp;'}</div>`,
    )
    .join('');
}

export function chatPage(payload: { content: string; embeds: readonly Embed[] }): string {
  const embeds = payload.embeds.map((e) => {
    const color = `#${e.color.toString(16).padStart(6, '0')}`;
    const title =
      e.url === undefined ? discordMd(e.title) : `<a href="${esc(e.url)}">${discordMd(e.title)}</a>`;
    return `<div class="embed" style="border-left-color:${color}"><div class="title">${title}</div><div class="desc">${discordMd(e.description)}</div></div>`;
  });
  const css =
    'body{margin:0;padding:20px;background:#313338;font:15px/1.375 "gg sans","Noto Sans",Arial,sans-serif;color:#dbdee1}' +
    '.msg{display:flex;gap:14px;max-width:680px}.avatar{width:40px;height:40px;border-radius:50%;background:#5865f2;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center;flex:none}' +
    '.name{color:#f2f3f5;font-weight:600}.bot{font-size:10px;background:#5865f2;color:#fff;border-radius:3px;padding:1px 4px;margin-left:4px}.time{color:#949ba4;font-size:12px;margin-left:6px}' +
    '.embed{background:#2b2d31;border-left:4px solid;border-radius:4px;padding:8px 16px 12px 12px;margin:6px 0;max-width:520px}' +
    '.title{font-weight:600;color:#f2f3f5;margin:4px 0 6px}.title a{color:#00a8fc;text-decoration:none}.desc{font-size:14px}.quote{border-left:4px solid #4e5058;padding-left:10px}';
  const body = `<div class="msg"><div class="avatar">sw</div><div><div><span class="name">shelfwatch</span><span class="bot">APP</span><span class="time">Today at 14:05</span></div><div>${discordMd(payload.content)}</div>${embeds.join('')}</div></div>`;
  return FRAME('Discord message', body, css);
}
