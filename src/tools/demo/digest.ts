/**
 * The end of the story: the daily digest of the demo workspace, built by the digest module from
 * the same snapshots and budget the workers used. It is sent to the email channel (so it lands in
 * the SMTP capture like any digest) and also written as `digest.html` with its charts inlined, the
 * file `shelfwatch digest --now --out` would write, to open in a browser.
 */

import type { Runtime } from '../../app/runtime.ts';
import type { SmtpPool } from '../../channels/smtp-pool.ts';
import { deliverDigest, inlineImagesAsDataUris, writeAtomically } from '../../digest/send.ts';
import { DEMO_WORKSPACE, EMAIL_CHANNEL } from './config.ts';

export interface ProducedDigest {
  subject: string;
  /** The browser copy, charts inlined. */
  htmlPath: string;
}

export async function produceDigest(
  runtime: Runtime,
  smtp: SmtpPool,
  dir: string,
  signal: AbortSignal,
): Promise<ProducedDigest> {
  const deps = runtime.digestDeps(smtp);
  const { built } = await deliverDigest(deps, {
    recipient: { workspace: DEMO_WORKSPACE, channel: EMAIL_CHANNEL, timeZone: 'UTC' },
    nowMs: runtime.clock.now(),
    scheduledDate: null,
    signal,
  });
  const html = inlineImagesAsDataUris(built.html, built.attachments);
  const htmlPath = await writeAtomically(dir, 'digest.html', html);
  return { subject: built.subject, htmlPath };
}
