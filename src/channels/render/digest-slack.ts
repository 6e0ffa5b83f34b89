/**
 * The compact digest as a Slack message: a header, one section per part (totals, movers, new
 * reviews), a context line with the link to the full report. Every string of the digest is
 * escaped (titles and keywords come from the API); each section stays under Slack's 3,000
 * characters and the whole message under the block total `SLACK_LIMITS` keeps.
 */
import type { DigestMessage } from '../digest-message.ts';
import {
  escapeMrkdwn,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  slackLinkUrl,
} from './slack-blocks.ts';
import { andMore, truncateMapped } from './text.ts';

/** One line's share of a section: a long title cannot push the other lines out. */
const LINE_CHARS = 300;
/** Room kept in a section for its heading and "…and N more". */
const SECTION_SLACK = 120;

function sectionText(heading: string, lines: readonly string[], more: number): string {
  const out = [`*${escapeMrkdwn(heading)}*`];
  let used = out[0]?.length ?? 0;
  let left = more;
  for (const [index, line] of lines.entries()) {
    if (used + line.length + 1 > SLACK_LIMITS.sectionChars - SECTION_SLACK) {
      left += lines.length - index;
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  if (left > 0) out.push(`_${andMore(left)}_`);
  return out.join('\n');
}

export function renderSlackDigest(message: DigestMessage): SlackMessage {
  const blocks: SlackBlock[] = [
    {
      type: 'header',
      // Escaped like the alerts' header: the house never sends raw `<` to Slack.
      text: {
        type: 'plain_text',
        text: truncateMapped(message.title, SLACK_LIMITS.headerChars, escapeMrkdwn),
        emoji: true,
      },
    },
  ];
  let total = 0;
  for (const section of message.sections) {
    if (section.lines.length === 0) continue;
    const lines = section.lines.map(
      (line) =>
        `• ${truncateMapped(line.label, LINE_CHARS / 2, escapeMrkdwn)}: ${truncateMapped(line.value, LINE_CHARS / 2, escapeMrkdwn)}`,
    );
    const text = sectionText(section.heading, lines, section.more);
    if (total + text.length > SLACK_LIMITS.totalChars - 1_000) break;
    total += text.length;
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
  }
  if (blocks.length === 1 && message.quietLine !== undefined)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(message.quietLine) } });
  const url = message.reportUrl === undefined ? undefined : slackLinkUrl(message.reportUrl);
  const footer = escapeMrkdwn(message.footer);
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: url === undefined ? footer : `<${url}|Full report> · ${footer}` }],
  });
  return { text: truncateMapped(message.title, SLACK_LIMITS.textChars, escapeMrkdwn), blocks };
}
