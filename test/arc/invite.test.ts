import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { planInvites, sendInvites } from '../../src/arc/invite.ts';
import { readInvites } from '../../src/arc/invite-counts.ts';
import { formatInviteRun } from '../../src/cli/arc.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { parsePlan } from '../../src/sim/index.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const KEY = 'sk_arc_invite_test_0123456789';
const SMALL_KEY = 'sk_arc_small_test_0123456789';
const prefix = testPrefix('arc-invite');
const redis = testRedis(prefix);
let runtime: Runtime;
let campaignId: string;
let otherCampaignId: string;

function csv(from: number, to: number): string {
  const rows = ['email,name'];
  for (let i = from; i < to; i += 1) rows.push(`reader${String(i).padStart(4, '0')}@example.com,Reader ${i}`);
  return `${rows.join('\n')}\n`;
}

async function invitePosts(sinceSeq: number) {
  return (await fx.control.requestsSince(sinceSeq)).filter(
    (r) => r.method === 'POST' && r.path === '/v1/arc/invites',
  );
}

function send(workspace: string, campaign: string, text: string) {
  return sendInvites(planInvites(campaign, text), {
    client: runtime.interactiveClient(workspace),
    redis,
    prefix,
    workspace,
    retryDelayMs: 0,
  });
}

const fx = useSimulator({
  seed: 9,
  books: 2,
  key: KEY,
  workspace: 'sim-arc',
  plan: 'custom:1000:1000000',
  otherKeys: [{ key: SMALL_KEY, workspace: 'sim-small', plan: parsePlan('custom:1000:1000000') }],
});

beforeAll(async () => {
  const world = fx.world;
  campaignId = world.campaigns[0]?.campaign_id ?? '';
  otherCampaignId = world.campaigns[1]?.campaign_id ?? '';
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'arc',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:1000:1000000',
        campaigns: [{ id: campaignId }],
      },
      // Our budget allows this workspace two requests this month; the API itself would allow more.
      {
        id: 'small',
        baseUrl: fx.url,
        apiKey: SMALL_KEY,
        plan: 'custom:1000:2',
        campaigns: [{ id: campaignId }],
      },
    ],
  });
  runtime = new Runtime({ config, logger: silentLogger(), version: 'test', notifiers: new Map() });
  await runtime.connect();
});

afterAll(async () => {
  await runtime?.close();
});

describe('sendInvites against the simulator', () => {
  it('invites 250 readers in 3 requests; a re-run invites nobody again and counts nothing twice', async () => {
    const seq = await fx.control.lastSeq();
    const first = await send('arc', campaignId, csv(0, 250));
    expect(first.summary).toEqual({
      invited: 250,
      alreadyInvited: 0,
      invalid: 0,
      notSent: 0,
      batches: 3,
      batchesSent: 3,
    });
    expect(await invitePosts(seq)).toHaveLength(3);
    expect(await readInvites(redis, prefix, 'arc', campaignId)).toBe(250);
    const ids = new Map(first.rows.map((r) => [r.email, r.inviteId]));
    expect(new Set(ids.values()).size).toBe(250);

    const seq2 = await fx.control.lastSeq();
    const again = await send('arc', campaignId, csv(0, 250));
    expect(again.summary).toMatchObject({ invited: 0, alreadyInvited: 250, notSent: 0 });
    // Same keys: the API repeats its first answers, with the same invite ids.
    expect(again.rows.every((r) => r.inviteId === ids.get(r.email))).toBe(true);
    expect(again.rows[0]?.reason).toBe('invited by an earlier run');
    expect(await invitePosts(seq2)).toHaveLength(3);
    expect(await readInvites(redis, prefix, 'arc', campaignId)).toBe(250);
  });

  it('a file with new readers added invites only them, whatever the batches became', async () => {
    const run = await send('arc', campaignId, csv(0, 260));
    expect(run.summary).toMatchObject({ invited: 10, alreadyInvited: 250, notSent: 0, batches: 3 });
    expect(run.rows.filter((r) => r.status === 'invited').map((r) => r.email)).toEqual(
      Array.from({ length: 10 }, (_, i) => `reader${String(250 + i).padStart(4, '0')}@example.com`),
    );
    expect(await readInvites(redis, prefix, 'arc', campaignId)).toBe(260);
  });

  it('repeats a batch with the same key after a 503, and counts it once', async () => {
    await fx.control.fault({ kind: 'status', status: 503, count: 1, pathPrefix: '/v1/arc/invites' });
    const seq = await fx.control.lastSeq();
    const run = await send('arc', otherCampaignId, csv(0, 5));
    expect(run.summary).toMatchObject({ invited: 5, notSent: 0, batchesSent: 1 });
    expect((await invitePosts(seq)).map((r) => r.status)).toEqual([503, 201]);
    expect(await readInvites(redis, prefix, 'arc', otherCampaignId)).toBe(5);
  });

  it('stops when the month budget is used up and lists the batches not sent', async () => {
    const seq = await fx.control.lastSeq();
    const run = await send('small', campaignId, csv(0, 250));
    expect(run.outcomes.map((o) => o.status)).toEqual(['sent', 'sent', 'not_sent']);
    expect(run.stoppedBecause).toMatch(
      /month's request budget of workspace "small" is used up \(it resets \d{4}-/,
    );
    expect(run.summary).toMatchObject({ invited: 200, notSent: 50, batchesSent: 2 });
    const notSent = run.rows.filter((r) => r.status === 'not_sent');
    expect(notSent.every((r) => r.batch === 3 && r.reason === run.stoppedBecause)).toBe(true);
    expect(await invitePosts(seq)).toHaveLength(2);
    const printed = formatInviteRun(run, 'small').split('\n');
    expect(printed).toContain(`stopped: ${run.stoppedBecause}`);
    expect(printed).toContain('not sent: 1 batch (3); run the same command again to send them');
    expect(printed).toContain('200 invited, 0 already invited, 0 invalid, 50 not sent — 2 of 3 batches sent');
  });

  it('stops at the first batch for a campaign the API does not know', async () => {
    const seq = await fx.control.lastSeq();
    const run = await send('arc', 'arc_unknown_campaign', csv(0, 150));
    expect(run.outcomes.map((o) => o.status)).toEqual(['not_sent', 'not_sent']);
    expect(run.stoppedBecause).toContain('knows no ARC campaign "arc_unknown_campaign"');
    expect(await invitePosts(seq)).toHaveLength(1);
    expect(await readInvites(redis, prefix, 'arc', 'arc_unknown_campaign')).toBeNull();
  });
});
