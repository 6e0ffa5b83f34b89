/**
 * The outbox channel, for trying shelfwatch without a mail server: each message becomes a pair
 * of files in a folder, `<time>-<messageId>.eml` (a complete RFC 5322 message, multipart text and
 * HTML, the same render as the SMTP channel) and `.html` (the HTML part, to open in a browser).
 *
 * Files appear whole or not at all (written under a hidden temporary name, then renamed), and a
 * message id is written once: sending the same message again finds its files and writes nothing.
 * The `.eml` is written last, so its presence means the pair is complete. Meant for one process
 * per folder; two processes writing the same message in the same instant could both write it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { z } from 'zod';
import { deliveryFields } from '../config-kit/channel-fields.ts';
import { stripBidi } from '../util/bidi.ts';
import { type Clock, systemClock } from '../util/clock.ts';
import { DeliveryError, type Notifier, type OutgoingMessage } from './notifier.ts';
import { defineChannel, unpaced } from './plugin.ts';
import { mailFields, messageToken, renderAlertEmail } from './render/email.ts';

export interface OutboxNotifierOptions {
  id: string;
  dir: string;
  clock?: Clock;
  /** Addresses shown in the files; nothing is sent to them. */
  from?: string;
  to?: readonly string[];
}

const FILE = /^(\d{8}T\d{9}Z)-(.+)\.(eml|html)$/;

/** `2026-11-21T14:00:10.123Z` → `20261121T140010123Z`: sorts by time, no colons (Windows). */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

interface Existing {
  stem: string;
  eml: boolean;
  html: boolean;
}

async function findExisting(dir: string, token: string): Promise<Existing | undefined> {
  const stems = new Map<string, Existing>();
  for (const name of await readdir(dir)) {
    const match = FILE.exec(name);
    if (match === null || match[2] !== token) continue;
    const stem = `${match[1]}-${token}`;
    const entry = stems.get(stem) ?? { stem, eml: false, html: false };
    if (match[3] === 'eml') entry.eml = true;
    else entry.html = true;
    stems.set(stem, entry);
  }
  // After a crash between the two renames only the .html exists: finish that pair, don't start another.
  const all = [...stems.values()];
  return all.find((e) => e.eml) ?? all[0];
}

async function writeAtomically(dir: string, name: string, data: string | Buffer): Promise<void> {
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data, { flag: 'wx' });
    await rename(temp, join(dir, name));
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/** Settings problems (no permission, a file where the folder should be) will not fix themselves. */
const BROKEN = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST']);

export function createOutboxNotifier(options: OutboxNotifierOptions): Notifier {
  const { id, dir } = options;
  const clock = options.clock ?? systemClock;
  const from = options.from ?? 'shelfwatch <shelfwatch@localhost>';
  const to = [...(options.to ?? ['outbox@localhost'])];
  // The same message sent twice at once by this process is written once.
  const writing = new Map<string, Promise<void>>();

  async function write(message: OutgoingMessage, token: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const existing = await findExisting(dir, token);
    if (existing?.eml === true && existing.html) return;
    const now = clock.now();
    const stem = existing?.stem ?? `${stamp(now)}-${token}`;
    const email = renderAlertEmail(message, { from, to, channelId: id });
    if (existing?.html !== true) await writeAtomically(dir, `${stem}.html`, stripBidi(email.html));
    const eml = await new MailComposer({ ...mailFields(email, from, to), date: new Date(now) })
      .compile()
      .build();
    await writeAtomically(dir, `${stem}.eml`, eml);
  }

  return {
    id,
    type: 'outbox',
    async send(message: OutgoingMessage, signal: AbortSignal) {
      if (signal.aborted)
        throw new DeliveryError(`outbox "${id}": aborted`, { channelId: id, retryable: true });
      const token = messageToken(message.messageId);
      let pending = writing.get(token);
      if (pending === undefined) {
        pending = write(message, token).finally(() => writing.delete(token));
        writing.set(token, pending);
      }
      try {
        await pending;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const broken = code !== undefined && BROKEN.has(code);
        const why = error instanceof Error ? error.message : String(error);
        throw new DeliveryError(`outbox "${id}": cannot write to ${dir}: ${why}`, {
          channelId: id,
          retryable: !broken,
          disableChannel: broken,
          cause: error,
        });
      }
    },
  };
}

export const outboxChannel = defineChannel({
  type: 'outbox',
  schema: z.strictObject({
    ...deliveryFields,
    type: z.literal('outbox'),
    dir: z
      .string()
      .trim()
      .min(1, 'expected a directory path')
      .meta({ description: 'Alerts are written here as files.' }),
  }),
  pace: unpaced,
  create: (config, deps) => createOutboxNotifier({ id: config.id, dir: config.dir, clock: deps.clock }),
});
