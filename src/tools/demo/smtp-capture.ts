/**
 * The demo's mail server: the shared local SMTP receiver, writing every message it accepts into the
 * demo folder: the message as `.eml` (opens in any mail client) and its HTML part as `.html` (opens
 * in a browser). Files are written before the receiver answers 250, so once a send has resolved its
 * files exist. The receiver reads each message with mailparser. Imported only dynamically: smtp-server
 * and mailparser are dev dependencies, and the demo is a checkout's tool (see docs/development.md).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSmtpReceiver } from '../receivers/smtp.ts';

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

export async function startMailCapture(
  dir: string,
  onMessage: (mail: CapturedMail) => void,
): Promise<MailCapture> {
  const messages: CapturedMail[] = [];
  let received = 0;

  const receiver = await startSmtpReceiver({
    async onMessage({ raw, mail: parsed }) {
      received += 1;
      // Parsing is on (the receiver's default), so `parsed` is there; `html` is false without a part.
      const subject = parsed?.subject ?? '';
      const html = typeof parsed?.html === 'string' ? parsed.html : undefined;
      const stem = join(dir, `${String(received).padStart(3, '0')}-${slug(subject)}`);
      await writeFile(`${stem}.eml`, raw);
      const htmlPath = html === undefined ? undefined : `${stem}.html`;
      if (htmlPath !== undefined && html !== undefined) await writeFile(htmlPath, html);
      const mail = { subject, emlPath: `${stem}.eml`, htmlPath };
      messages.push(mail);
      onMessage(mail);
    },
  });
  return { url: receiver.url, messages, close: () => receiver.close() };
}
