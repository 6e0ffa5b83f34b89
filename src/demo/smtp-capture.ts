/**
 * A local SMTP server (smtp-server on 127.0.0.1) that accepts every message and writes it into the
 * demo folder: the message as `.eml` (opens in any mail client) and its HTML part as `.html`
 * (opens in a browser). Files are written before the server answers 250, so once a send has
 * resolved its files exist.
 */
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { parseMessage } from './mime.ts';

export interface CapturedMail {
  subject: string;
  emlPath: string;
  /** The HTML part as a file; undefined for a text-only message. */
  htmlPath: string | undefined;
}

export interface MailCapture {
  /** Plain SMTP on loopback, no STARTTLS attempt. */
  readonly url: string;
  readonly messages: readonly CapturedMail[];
  close(): Promise<void>;
}

/** A file name from a subject: what the message is about, readable in a directory listing. */
function slug(subject: string): string {
  const text = subject
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return text === '' ? 'message' : text;
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startMailCapture(
  dir: string,
  onMessage: (mail: CapturedMail) => void,
): Promise<MailCapture> {
  const messages: CapturedMail[] = [];
  let received = 0;

  const store = async (raw: Buffer): Promise<CapturedMail> => {
    received += 1;
    const parsed = parseMessage(raw);
    const stem = join(dir, `${String(received).padStart(3, '0')}-${slug(parsed.subject)}`);
    await writeFile(`${stem}.eml`, raw);
    const htmlPath = parsed.html === undefined ? undefined : `${stem}.html`;
    if (htmlPath !== undefined && parsed.html !== undefined) await writeFile(htmlPath, parsed.html);
    return { subject: parsed.subject, emlPath: `${stem}.eml`, htmlPath };
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // Alert emails are small; the digest with its charts is the biggest, well under this.
    size: 25 * 1024 * 1024,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        store(Buffer.concat(chunks)).then(
          (mail) => {
            messages.push(mail);
            onMessage(mail);
            callback();
          },
          (error: unknown) =>
            callback(smtpError(451, `capture could not store the message: ${String(error)}`)),
        );
      });
    },
  });
  // A client that drops mid-session (at shutdown) is not worth an unhandled error.
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const connection of server.connections) connection.close();
      }),
  };
}
