/** Mute-link tokens: signed, expiring, scoped; every renderer of a chat channel shows the link whole. */
import { describe, expect, it } from 'vitest';
import { renderDiscordMessage } from '../../src/channels/discord.ts';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { renderNtfyMessage } from '../../src/channels/ntfy.ts';
import { renderAlertEmail } from '../../src/channels/render/email.ts';
import { shellWord } from '../../src/channels/render/email-why.ts';
import { renderSlackMessage } from '../../src/channels/render/slack-blocks.ts';
import { renderTeamsCard } from '../../src/channels/teams.ts';
import { renderTelegramText } from '../../src/channels/telegram.ts';
import { consoleSchema, linksNotice } from '../../src/config/console.ts';
import { describeClaims } from '../../src/silence/mute-apply.ts';
import { LINK_TTL_MS, matchersOf, messageLinks, readMuteLink } from '../../src/silence/mute-link.ts';
import { makeAlert } from '../deliver/pipeline-harness.ts';

const SETTINGS = { publicUrl: 'https://shelfwatch.example.com/console', secret: 'a'.repeat(40) };
const NOW = 1_800_000_000_000;
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop() ?? '';

describe('mute link tokens', () => {
  const alert = makeAlert(1, { subject: { asin: 'B0CJ4XQ2ZK', marketplace: 'UK', keyword: 'k' } });
  const links = messageLinks(SETTINGS, [alert], 'team-slack', 'msg-1', NOW);
  const book = links.alerts[alert.fingerprint]?.muteBook ?? '';

  it('point under the public URL, and read back as what they were made for until they expire', () => {
    expect(book.startsWith('https://shelfwatch.example.com/console/mute/')).toBe(true);
    expect(links.manage).toBe('https://shelfwatch.example.com/console/silences');
    const read = readMuteLink(tokenOf(book), SETTINGS.secret, NOW + 1_000);
    if (!read.ok) throw new Error(read.reason);
    expect(read.claims).toMatchObject({
      act: 'book',
      ch: 'team-slack',
      ws: 'ws',
      asin: 'B0CJ4XQ2ZK',
      mp: 'UK',
    });
    expect(matchersOf(read.claims)).toEqual({
      workspace: 'ws',
      asin: ['B0CJ4XQ2ZK'],
      channel: 'team-slack',
      severity: ['info', 'warning'],
    });
    expect(describeClaims(read.claims)).toBe(
      'Mute every alert about the book B0CJ4XQ2ZK (UK) of workspace "ws" sent to the channel "team-slack" for 24 hours (critical ones still come).',
    );
    expect(readMuteLink(tokenOf(book), SETTINGS.secret, NOW + LINK_TTL_MS.book)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuse another secret, a changed claim and a cut token', () => {
    const token = tokenOf(book);
    expect(readMuteLink(token, 'b'.repeat(40), NOW)).toEqual({ ok: false, reason: 'forged' });
    const [body = '', sig = ''] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const longer = Buffer.from(JSON.stringify({ ...claims, exp: NOW * 2 })).toString('base64url');
    expect(readMuteLink(`${longer}.${sig}`, SETTINGS.secret, NOW)).toEqual({ ok: false, reason: 'forged' });
    expect(readMuteLink(token.slice(0, -2), SETTINGS.secret, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('are the same for a re-sent message (same nonce), and differ between messages', () => {
    const again = messageLinks(SETTINGS, [alert], 'team-slack', 'msg-1', NOW);
    const other = messageLinks(SETTINGS, [alert], 'team-slack', 'msg-2', NOW);
    expect(again.alerts[alert.fingerprint]?.muteBook).toBe(book);
    expect(other.alerts[alert.fingerprint]?.muteBook).not.toBe(book);
  });
});

describe('every channel shows the mute link', () => {
  const alert = makeAlert(2, { title: 'Dune fell to #40 for "space opera"' });
  const message: OutgoingMessage = {
    alerts: [alert],
    totalCount: 1,
    hideLowStarText: false,
    messageId: 'm',
    links: messageLinks(SETTINGS, [alert], 'c', 'm', NOW),
  };
  const url = message.links?.alerts[alert.fingerprint]?.muteBook ?? '';
  it.each([
    ['slack', () => JSON.stringify(renderSlackMessage(message))],
    ['discord', () => JSON.stringify(renderDiscordMessage(message))],
    ['teams', () => JSON.stringify(renderTeamsCard(message))],
    ['telegram', () => renderTelegramText(message)],
    ['ntfy', () => JSON.stringify(renderNtfyMessage(message))],
    ['email', () => renderAlertEmail(message, { from: 'a@x.test', to: ['b@x.test'] }).html],
  ])('%s', (_name, render) => {
    const out = render();
    expect(out).toContain('Mute this book for a day');
    expect(out).toContain(url);
  });

  it('none without links', () => {
    const bare = { ...message, links: undefined };
    delete bare.links;
    expect(JSON.stringify(renderSlackMessage(bare))).not.toContain('/mute/');
    expect(renderAlertEmail(bare, { from: 'a@x.test', to: ['b@x.test'] }).text).not.toContain('/mute/');
  });
});

describe('the email footer quotes what a shell would expand', () => {
  it.each([
    ['ws-1', 'ws-1'],
    ['*', "'*'"],
    ["it's", "'it'\\''s'"],
  ])('%s', (value, quoted) => {
    expect(shellWord(value)).toBe(quoted);
  });
});

describe('validate says when messages carry no links', () => {
  it.each([
    [{}, 'console.publicUrl'],
    [{ publicUrl: 'https://s.example.com' }, 'console.linkSecret'],
    [{ publicUrl: 'https://s.example.com', linkSecret: 'x'.repeat(32) }, undefined],
  ])('%j → %s', (console, path) => {
    const parsed = consoleSchema.parse(console);
    expect(linksNotice(parsed)?.path).toBe(path);
  });

  it('a short secret is refused, and its value is not shown', () => {
    const result = consoleSchema.safeParse({ linkSecret: 'short-secret' });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain('at least 32 characters');
  });
});
