/**
 * The compact digest as a Teams Adaptive Card (for a Workflows webhook): untrusted text only in
 * `TextRun`s, which Teams shows as they are (no markdown, no mentions), our own headings in
 * `TextBlock`s, and the report link as an `Action.OpenUrl`. Kept well under Teams' 28 KB.
 */
import { stripBidi } from '../../util/bidi.ts';
import type { DigestMessage } from '../digest-message.ts';
import { adaptiveCardMessage, textRun } from './adaptive-card.ts';
import { safeUrl } from './plain.ts';
import { andMore, truncate } from './text.ts';

/** Lines shown per section; the rest is "…and N more" (the card stays small). */
export const TEAMS_DIGEST_LINES = 10;
const LINE_CHARS = 200;
/** The card's body in JSON bytes, under Teams' 28 KB with room for the envelope and footer. */
export const TEAMS_DIGEST_BYTES = 20 * 1024;

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** A line cut at LINE_CHARS after its bidi controls are gone (what textRun would strip). */
const run = (text: string, extra: Record<string, unknown> = {}) =>
  textRun(truncate(stripBidi(text), LINE_CHARS), extra);

export function renderTeamsDigest(message: DigestMessage) {
  const ours = (text: string) => ({ type: 'TextBlock', text, wrap: true });
  const body: unknown[] = [
    { type: 'RichTextBlock', inlines: [run(message.title, { weight: 'Bolder', size: 'Medium' })] },
  ];
  let shown = 0;
  let used = bytesOf(body);
  for (const section of message.sections) {
    if (section.lines.length === 0) continue;
    const lines = section.lines.slice(0, TEAMS_DIGEST_LINES);
    const items: unknown[] = [
      { type: 'RichTextBlock', inlines: [run(section.heading, { weight: 'Bolder' })] },
    ];
    let more = section.more + section.lines.length - lines.length;
    for (const [index, line] of lines.entries()) {
      const item = {
        type: 'RichTextBlock',
        inlines: [run(`${line.label}: `, { weight: 'Bolder' }), run(line.value)],
      };
      // Measured in JSON bytes: escapes and multi-byte text count as Teams counts them.
      const size = bytesOf(item);
      if (used + size > TEAMS_DIGEST_BYTES) {
        more += lines.length - index;
        break;
      }
      used += size;
      items.push(item);
    }
    if (more > 0) items.push({ ...ours(andMore(more)), isSubtle: true });
    shown += 1;
    body.push({ type: 'Container', separator: true, items });
  }
  if (shown === 0 && message.quietLine !== undefined)
    body.push({ type: 'RichTextBlock', inlines: [run(message.quietLine)] });
  body.push({ type: 'RichTextBlock', inlines: [run(message.footer, { isSubtle: true })] });
  const url = safeUrl(message.reportUrl);
  return adaptiveCardMessage(
    body,
    url === undefined ? undefined : [{ type: 'Action.OpenUrl', title: 'Full report', url }],
  );
}
