/**
 * Just enough MIME to show a captured message: its subject and its HTML and text parts. The demo
 * ships without mailparser (a test-only dependency), and the messages it reads are the ones
 * nodemailer composed, so multipart nesting, base64, quoted-printable and RFC 2047 encoded words
 * cover them. Anything else is kept as it came rather than guessed at.
 */

export interface ParsedMessage {
  subject: string;
  html: string | undefined;
  text: string | undefined;
}

interface Part {
  headers: Map<string, string>;
  /** The body as bytes held in a latin1 string, so no byte is lost before the charset is known. */
  body: string;
}

function splitPart(raw: string): Part {
  const match = /\r?\n\r?\n/.exec(raw);
  const head = match === null ? raw : raw.slice(0, match.index);
  const body = match === null ? '' : raw.slice(match.index + match[0].length);
  const headers = new Map<string, string>();
  // A header line that starts with white space continues the previous one (folding).
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** `text/html; charset="utf-8"` → the type and its parameters. */
function contentType(value: string | undefined): { type: string; params: Map<string, string> } {
  const [type = 'text/plain', ...rest] = (value ?? 'text/plain').split(';');
  const params = new Map<string, string>();
  for (const item of rest) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim().toLowerCase();
    const raw = item.slice(eq + 1).trim();
    params.set(key, raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw);
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeQuotedPrintable(latin1: string): Buffer {
  const joined = latin1.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(joined.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

function decodeBody(part: Part): Buffer {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(part.body);
  return Buffer.from(part.body, 'latin1');
}

function decodeText(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** `=?UTF-8?Q?New_1=E2=98=85?=` and `=?UTF-8?B?…?=` → text. */
export function decodeEncodedWords(value: string): string {
  const joined = value.replace(/\?=\s+=\?/g, '?==?');
  return joined.replace(
    /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g,
    (_, charset: string, kind: string, text: string) => {
      const bytes =
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : decodeQuotedPrintable(text.replace(/_/g, ' '));
      return decodeText(bytes, charset);
    },
  );
}

function walk(part: Part, found: { html?: string; text?: string }, depth: number): void {
  const { type, params } = contentType(part.headers.get('content-type'));
  const boundary = params.get('boundary');
  if (type.startsWith('multipart/') && boundary !== undefined && depth < 10) {
    const sections = part.body.split(`--${boundary}`);
    // The first section is the preamble; the one after the closing `--boundary--` starts with "--".
    for (const section of sections.slice(1)) {
      if (section.startsWith('--')) break;
      walk(splitPart(section.replace(/^\r?\n/, '')), found, depth + 1);
    }
    return;
  }
  const disposition = part.headers.get('content-disposition') ?? '';
  if (disposition.toLowerCase().startsWith('attachment')) return;
  if (type === 'text/html' && found.html === undefined)
    found.html = decodeText(decodeBody(part), params.get('charset'));
  if (type === 'text/plain' && found.text === undefined)
    found.text = decodeText(decodeBody(part), params.get('charset'));
}

export function parseMessage(raw: Buffer): ParsedMessage {
  const root = splitPart(raw.toString('latin1'));
  const found: { html?: string; text?: string } = {};
  walk(root, found, 0);
  const subjectBytes = Buffer.from(root.headers.get('subject') ?? '', 'latin1');
  return {
    subject: decodeEncodedWords(subjectBytes.toString('utf8')),
    html: found.html,
    text: found.text,
  };
}
