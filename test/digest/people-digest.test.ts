/**
 * A person with a digest subscription gets the daily digest by email, in their own zone: the
 * digest processor against the simulator, Redis and a real SMTP server.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSmtpPool, type SmtpPool } from '../../src/channels/smtp-pool.ts';
import { processDigest } from '../../src/digest/processor.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { type Scenario, startScenario, WORKSPACE } from './sim-scenario.ts';

const prefix = testPrefix('people-digest');
const redis = testRedis(prefix);
/** 08:00 in New York on Sat 21 Nov 2026: Bob's digest for Fri 20 Nov. */
const FIRE = Date.UTC(2026, 10, 21, 13);
const signal = new AbortController().signal;

let capture: SmtpReceiver;
let pool: SmtpPool;
let s: Scenario;

beforeAll(async () => {
  capture = await startSmtpReceiver();
  pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 2_000, greetingTimeout: 2_000 });
  s = await startScenario({
    startAt: '2026-11-21T13:00:30Z',
    timeZone: 'Europe/Berlin',
    redis,
    prefix,
    channels: [
      {
        id: 'mail',
        type: 'email',
        smtpUrl: capture.url,
        from: 'digest@shelfwatch.test',
        to: ['team@acme.test'],
      },
    ],
    recipients: [],
    people: {
      accounts: [
        { id: 'ana', name: 'Ana', email: 'ana@acme.test' },
        { id: 'bob', name: 'Bob', email: 'bob@acme.test', timeZone: 'America/New_York' },
      ],
      subscriptions: [
        { person: 'ana', kinds: ['bsr_worsened'] },
        { person: 'bob', alerts: false, digest: true },
      ],
    },
    smtp: pool,
  });
  await s.pollAll();
});

afterAll(async () => {
  await s?.close();
  await pool?.closeAll();
  await capture?.stop();
});

it('the person with the digest subscription is its recipient, in their zone, and gets it by email', async () => {
  expect(s.deps.config.digest.enabled).toBe(true);
  expect(s.deps.config.digest.recipients).toEqual([
    { workspace: WORKSPACE, channel: 'person-bob-mail', timeZone: 'America/New_York' },
  ]);
  const result = await processDigest(
    s.deps,
    { workspace: WORKSPACE, channel: 'person-bob-mail' },
    { signal, fireTimeMs: FIRE },
  );
  expect(result).toMatchObject({ status: 'sent', day: '2026-11-20', kind: 'email' });
  const [message] = await capture.waitForMessages(1, 10_000);
  expect(message?.to).toEqual(['bob@acme.test']);
  const mail = await simpleParser(message?.raw ?? Buffer.alloc(0));
  expect(mail.subject).toMatch(/^Daily digest for acme — Fri 20 Nov/);
  expect(capture.messages).toHaveLength(1);
});
