import { beforeAll, describe, expect, it } from 'vitest';
import { type ErrorBody, PUBLISHER_KEY, TestSim, type WorldBody } from './helpers.ts';

interface InviteAnswer {
  campaign_id: string;
  data: { invite_id: string; email: string; status: 'invited' | 'already_invited' }[];
}

let t: TestSim;
let campaignId: string;

beforeAll(async () => {
  t = await TestSim.start();
  campaignId = (await t.control<WorldBody>('GET', '/_sim/world')).campaigns[0]!.campaign_id;
});

function post<T>(body: unknown, idempotencyKey: string | null, key?: string) {
  const headers: Record<string, string> =
    idempotencyKey === null ? {} : { 'Idempotency-Key': idempotencyKey };
  return t.request<T>('POST', '/v1/arc/invites', { body, headers, ...(key === undefined ? {} : { key }) });
}

describe('POST /v1/arc/invites', () => {
  it('invites readers with 201 and marks readers invited before as already_invited', async () => {
    const first = await post<InviteAnswer>(
      { campaign_id: campaignId, readers: [{ email: 'ann@example.com', name: 'Ann' }], message: 'Enjoy!' },
      'key-1',
    );
    expect(first.status).toBe(201);
    expect(first.body.campaign_id).toBe(campaignId);
    expect(first.body.data).toEqual([
      { invite_id: expect.stringMatching(/^inv_/), email: 'ann@example.com', status: 'invited' },
    ]);

    const second = await post<InviteAnswer>(
      {
        campaign_id: campaignId,
        readers: [
          { email: 'ANN@example.com', name: 'Ann' },
          { email: 'bo@example.com', name: 'Bo' },
          { email: 'bo@example.com', name: 'Bo again' },
        ],
      },
      'key-2',
    );
    expect(second.status).toBe(201);
    expect(second.body.data.map((item) => item.status)).toEqual([
      'already_invited',
      'invited',
      'already_invited',
    ]);
    expect(second.body.data[0]!.invite_id).toBe(first.body.data[0]!.invite_id);

    // Invitations belong to a workspace: another workspace invites Ann afresh.
    const other = await post<InviteAnswer>(
      { campaign_id: campaignId, readers: [{ email: 'ann@example.com', name: 'Ann' }] },
      'key-1',
      PUBLISHER_KEY,
    );
    expect(other.body.data[0]!.status).toBe('invited');
  });

  it('replays the first answer for the same key and body, whatever the key order', async () => {
    const body = { campaign_id: campaignId, readers: [{ email: 'cy@example.com', name: 'Cy' }] };
    const first = await post<InviteAnswer>(body, 'replay-1');
    const again = await post<InviteAnswer>(
      { readers: [{ name: 'Cy', email: 'cy@example.com' }], campaign_id: campaignId },
      'replay-1',
    );
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.body.data[0]!.status).toBe('invited');
  });

  it('answers 409 conflict for the same key with another body', async () => {
    await post({ campaign_id: campaignId, readers: [{ email: 'di@example.com', name: 'Di' }] }, 'conflict-1');
    const reply = await post<ErrorBody>(
      { campaign_id: campaignId, readers: [{ email: 'ed@example.com', name: 'Ed' }] },
      'conflict-1',
    );
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('conflict');
  });

  it('answers 400 without an Idempotency-Key or with a body that is not JSON', async () => {
    const missing = await post<ErrorBody>(
      { campaign_id: campaignId, readers: [{ email: 'x@example.com', name: 'X' }] },
      null,
    );
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('Idempotency-Key');
    const notJson = await post<ErrorBody>('{"campaign_id": ', 'bad-json');
    expect(notJson.status).toBe(400);
  });

  it('answers 422 validation_failed with the paths of the bad fields, and remembers nothing', async () => {
    const readers = [
      { email: 'ok@example.com', name: 'Ok' },
      { email: 'ok2@example.com', name: 'Ok2' },
      { email: 'not-an-email', name: 'Nope' },
      { email: 'ok3@example.com' },
    ];
    const reply = await post<ErrorBody>({ campaign_id: campaignId, readers, message: 42 }, 'invalid-1');
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe('validation_failed');
    const paths = reply.body.error.details!.map((detail) => detail.path);
    expect(paths).toEqual(expect.arrayContaining(['readers[2].email', 'readers[3].name', 'message']));
    for (const detail of reply.body.error.details!) expect(detail.message.length).toBeGreaterThan(0);

    const tooMany = Array.from({ length: 101 }, (_, i) => ({ email: `r${i}@example.com`, name: `R${i}` }));
    const many = await post<ErrorBody>({ campaign_id: campaignId, readers: tooMany }, 'invalid-2');
    expect(many.status).toBe(422);
    expect(many.body.error.details!.map((d) => d.path)).toContain('readers');
    const none = await post<ErrorBody>({ campaign_id: campaignId, readers: [] }, 'invalid-3');
    expect(none.status).toBe(422);
    const notObject = await post<ErrorBody>([1, 2], 'invalid-4');
    expect(notObject.status).toBe(422);

    // A refused request is not stored: the same key with a fixed body succeeds.
    const fixed = await post<InviteAnswer>(
      { campaign_id: campaignId, readers: readers.slice(0, 2) },
      'invalid-1',
    );
    expect(fixed.status).toBe(201);
  });

  it('answers 404 for an unknown campaign', async () => {
    const reply = await post<ErrorBody>(
      { campaign_id: 'arc_missing', readers: [{ email: 'a@example.com', name: 'A' }] },
      'k-404',
    );
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('not_found');
  });
});
