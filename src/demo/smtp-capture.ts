/**
 * The demo's mail server: the shared local SMTP receiver, writing every message it accepts into the
 * demo folder: the message as `.eml` (opens in any mail client) and its HTML part as `.html` (opens
 * in a browser). Files are written before the receiver answers 250, so once a send has resolved its
 * files exist. Imported only dynamically: smtp-server is a dev dependency.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSmtpReceiver } from '../dev/receivers/smtp.ts';
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

export async function startMailCapture(
  dir: string,
  onMessage: (mail: CapturedMail) => void,
): Promise<MailCapture> {
  const messages: CapturedMail[] = [];
  let received = 0;

  // Without mailparser: the demo reads nodemailer's messages with its own small MIME reader.
  const receiver = await startSmtpReceiver({
    parse: false,
    async onMessage({ raw }) {
      received += 1;
      const parsed = parseMessage(raw);
      const stem = join(dir, `${String(received).padStart(3, '0')}-${slug(parsed.subject)}`);
      await writeFile(`${stem}.eml`, raw);
      const htmlPath = parsed.html === undefined ? undefined : `${stem}.html`;
      if (htmlPath !== undefined && parsed.html !== undefined) await writeFile(htmlPath, parsed.html);
      const mail = { subject: parsed.subject, emlPath: `${stem}.eml`, htmlPath };
      messages.push(mail);
      onMessage(mail);
    },
  });
  return { url: receiver.url, messages, close: () => receiver.close() };
}
