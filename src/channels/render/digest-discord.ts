/**
 * The compact digest as one Discord embed: the title, one field per part (totals, movers, new
 * reviews), the report link as the embed's URL and the footer. Untrusted text is escaped with the
 * alert messages' markup (markdown escaped, `@` defused); `allowed_mentions` pings nobody. Limits
 * (discord.com/developers/docs/resources/message#embed-object-embed-limits): title 256, field
 * name 256, field value 1,024, 25 fields, 6,000 characters in all.
 */
import type { DigestMessage } from '../digest-message.ts';
import { escapeCut, type Markup, safeUrl } from './plain.ts';
import { andMore, truncate } from './text.ts';

export const DISCORD_DIGEST_LIMITS = { titleChars: 256, fieldValueChars: 1_024, fields: 25 } as const;
const LINE_CHARS = 200;
const BLUE = 0x0969da;

function fieldValue(
  markup: Markup,
  lines: readonly { label: string; value: string }[],
  more: number,
): string {
  const out: string[] = [];
  let used = 0;
  let left = more;
  for (const [index, line] of lines.entries()) {
    const text = `• ${escapeCut(markup, line.label, LINE_CHARS / 2)}: ${escapeCut(markup, line.value, LINE_CHARS / 2)}`;
    // Room for "…and N more" stays under the field's limit.
    if (used + text.length + 1 > DISCORD_DIGEST_LIMITS.fieldValueChars - 40) {
      left += lines.length - index;
      break;
    }
    out.push(text);
    used += text.length + 1;
  }
  if (left > 0) out.push(andMore(left));
  return out.join('\n');
}

/** `markup` is Discord's own (channels/discord.ts): one way to escape for one service. */
export function renderDiscordDigest(message: DigestMessage, markup: Markup) {
  const fields = message.sections
    .filter((section) => section.lines.length > 0)
    .slice(0, DISCORD_DIGEST_LIMITS.fields)
    .map((section) => ({
      name: escapeCut(markup, section.heading, 250),
      value: fieldValue(markup, section.lines, section.more),
    }));
  const url = safeUrl(message.reportUrl);
  return {
    content: '',
    embeds: [
      {
        title: escapeCut(markup, message.title, DISCORD_DIGEST_LIMITS.titleChars),
        color: BLUE,
        ...(fields.length === 0 && message.quietLine !== undefined
          ? { description: escapeCut(markup, message.quietLine, 1_000) }
          : {}),
        fields,
        ...(url === undefined ? {} : { url }),
        footer: { text: truncate(message.footer, 500) },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}
