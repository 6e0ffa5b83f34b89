import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { applyEvent } from './control-events.ts';
import {
  ClockBody,
  describeIssues,
  EventBody,
  FaultBody,
  KeyBody,
  RatesBody,
  RevokeBody,
  type SimWorld,
} from './control-schemas.ts';
import { badRequest, notFound, SimConfigError, SimErrorAnswer } from './errors.ts';
import { errorBody, send } from './http.ts';
import { parsePlan } from './keys.ts';
import type { SimState } from './state.ts';

function tokenMatches(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseBody<T extends z.ZodType>(schema: T, bodyText: string | undefined): z.infer<T> {
  if (bodyText === undefined) throw badRequest('the request body is larger than 1 MiB');
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    throw badRequest('the request body must be JSON');
  }
  const result = schema.safeParse(json);
  if (!result.success) throw badRequest(describeIssues(result.error));
  return result.data;
}

function world(state: SimState): SimWorld {
  const nowMs = state.clock.now();
  const { catalogue } = state.world;
  return {
    now: new Date(nowMs).toISOString(),
    books: catalogue.books.map((book) => ({
      asin: book.asin,
      title: book.title,
      author: book.author,
      marketplaces: book.marketplaces,
      keywords: state.world.keywords.forBook(book, 20),
    })),
    campaigns: catalogue.campaigns.map((campaign) => ({
      campaign_id: campaign.campaignId,
      asin: campaign.asin,
    })),
    workspaces: state.keys.workspaces().map(({ workspace, plan, keys }) => ({
      workspace,
      plan,
      keys,
      usage: state.limits.snapshot(workspace, nowMs),
    })),
  };
}

function dispatch(state: SimState, method: string, url: URL, bodyText: string | undefined): unknown {
  const route = `${method} ${url.pathname}`;
  switch (route) {
    case 'GET /_sim/world':
      return world(state);
    case 'POST /_sim/events':
      return applyEvent(state, parseBody(EventBody, bodyText));
    case 'POST /_sim/faults': {
      const fault = parseBody(FaultBody, bodyText);
      if (fault.kind === 'drop_field' && fault.field === undefined)
        throw badRequest('field: drop_field needs a field path');
      state.faults.enqueue(fault);
      return { ok: true, queued: state.faults.pending().queued.length };
    }
    case 'GET /_sim/faults':
      return state.faults.pending();
    case 'PUT /_sim/faults/rates':
      state.faults.setRates(parseBody(RatesBody, bodyText));
      return { ok: true, rates: state.faults.pending().rates };
    case 'DELETE /_sim/faults':
      state.faults.clear();
      return { ok: true };
    case 'POST /_sim/keys': {
      const body = parseBody(KeyBody, bodyText);
      try {
        const spec = { key: body.key, workspace: body.workspace, plan: parsePlan(body.plan) };
        state.keys.add(
          body.disabledEndpoints === undefined
            ? spec
            : { ...spec, disabledEndpoints: body.disabledEndpoints },
        );
      } catch (error) {
        if (error instanceof SimConfigError) throw badRequest(error.message);
        throw error;
      }
      return { ok: true, workspace: body.workspace };
    }
    case 'POST /_sim/keys/revoke': {
      const body = parseBody(RevokeBody, bodyText);
      if (!state.keys.revoke(body.key)) throw notFound('no such key');
      return { ok: true };
    }
    case 'POST /_sim/clock':
      state.clock.advance(parseBody(ClockBody, bodyText).advanceMs);
      return { ok: true, now: new Date(state.clock.now()).toISOString() };
    case 'GET /_sim/requests': {
      const raw = url.searchParams.get('since_seq') ?? '0';
      if (!/^\d{1,15}$/.test(raw)) throw badRequest('since_seq must be a whole number');
      return { data: state.log.since(Number(raw)) };
    }
    case 'DELETE /_sim/requests':
      state.log.clear();
      return { ok: true };
    default:
      throw notFound(`no control endpoint ${route}`);
  }
}

/** The `/_sim/` endpoints: admin token required, never counted against limits, never in the request log. */
export function handleControl(
  state: SimState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  bodyText: string | undefined,
): void {
  if (!tokenMatches(state.adminToken, req.headers['x-sim-admin-token'])) {
    send(
      res,
      401,
      {},
      JSON.stringify(errorBody('unauthorized', 'the X-Sim-Admin-Token header is missing or wrong')),
    );
    return;
  }
  try {
    send(res, 200, {}, JSON.stringify(dispatch(state, req.method ?? 'GET', url, bodyText)));
  } catch (error) {
    if (!(error instanceof SimErrorAnswer)) throw error;
    send(res, error.status, {}, JSON.stringify(errorBody(error.code, error.message)));
  }
}
