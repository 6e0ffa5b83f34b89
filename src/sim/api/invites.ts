import { z } from 'zod';
import { badRequest, type ErrorDetail, notFound, SimErrorAnswer } from '../errors.ts';
import type { Rng } from '../prng.ts';
import type { ApiContext, ApiResult } from './types.ts';

const Reader = z.object({
  email: z.email({ error: 'must be an email address' }),
  name: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }).max(200),
});

const InviteBody = z.object({
  campaign_id: z.string({ error: 'is required (a string)' }).min(1, { error: 'must not be empty' }),
  readers: z
    .array(Reader, { error: 'is required (a list of readers)' })
    .min(1, { error: 'must list 1 to 100 readers' })
    .max(100, { error: 'must list 1 to 100 readers' }),
  message: z.string({ error: 'must be a string' }).max(5000).optional(),
});

type InviteAnswer = {
  campaign_id: string;
  data: { invite_id: string; email: string; status: 'invited' | 'already_invited' }[];
};

/** `readers[2].email`: the path style of the contract's 422 details. */
function detailPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path)
    out += typeof segment === 'number' ? `[${segment}]` : `${out === '' ? '' : '.'}${String(segment)}`;
  return out === '' ? 'body' : out;
}

/** JSON with sorted keys: two bodies are "the same" when they mean the same, whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Invitations and idempotency keys, per workspace. Only successful (201) answers are remembered
 * under their key: a request refused with 4xx can be fixed and sent again with the same key.
 */
export class InviteStore {
  private readonly answers = new Map<string, { fingerprint: string; answer: InviteAnswer }>();
  private readonly invited = new Map<string, string>();

  constructor(private readonly rng: Rng) {}

  handle(ctx: ApiContext): ApiResult {
    const key = ctx.idempotencyKey;
    if (key === undefined || key.trim() === '') {
      throw badRequest('the Idempotency-Key header is required on POST /v1/arc/invites');
    }
    if (key.length > 255) throw badRequest('the Idempotency-Key header must be at most 255 characters');
    let parsed: unknown;
    try {
      parsed = JSON.parse(ctx.bodyText);
    } catch {
      throw badRequest('the request body must be JSON');
    }
    const fingerprint = canonical(parsed);
    const stored = this.answers.get(`${ctx.workspace}|${key}`);
    if (stored !== undefined) {
      if (stored.fingerprint !== fingerprint) {
        throw new SimErrorAnswer(409, 'conflict', 'this Idempotency-Key was used with a different body');
      }
      return { status: 201, body: stored.answer };
    }
    const result = InviteBody.safeParse(parsed);
    if (!result.success) {
      const details: ErrorDetail[] = result.error.issues.map((issue) => ({
        path: detailPath(issue.path),
        message: issue.message,
      }));
      throw new SimErrorAnswer(422, 'validation_failed', 'the request body failed validation', details);
    }
    const body = result.data;
    const campaign = ctx.world.catalogue.campaign(body.campaign_id);
    if (campaign === undefined) throw notFound(`no ARC campaign ${body.campaign_id}`);
    const answer: InviteAnswer = { campaign_id: campaign.campaignId, data: [] };
    for (const reader of body.readers) {
      const inviteKey = `${ctx.workspace}|${campaign.campaignId}|${reader.email.toLowerCase()}`;
      const existing = this.invited.get(inviteKey);
      if (existing !== undefined) {
        answer.data.push({ invite_id: existing, email: reader.email, status: 'already_invited' });
        continue;
      }
      const inviteId = `inv_${this.rng.hex(12, 'invite', inviteKey)}`;
      this.invited.set(inviteKey, inviteId);
      answer.data.push({ invite_id: inviteId, email: reader.email, status: 'invited' });
    }
    this.answers.set(`${ctx.workspace}|${key}`, { fingerprint, answer });
    return { status: 201, body: answer };
  }
}
