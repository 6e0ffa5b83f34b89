import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InviteStore } from './api/invites.ts';
import { handleApi, internalError } from './api-handler.ts';
import { SimClock } from './clock.ts';
import { handleControl } from './control.ts';
import type { SimDialect } from './dialect.ts';
import { SimConfigError } from './errors.ts';
import { FaultInjector, type SimFaultRates } from './faults.ts';
import { errorBody, readBody, send } from './http.ts';
import { DEMO_KEYS, KeyRegistry, type SimKeySpec } from './keys.ts';
import { LimitCounter } from './limits.ts';
import { RequestLog } from './request-log.ts';
import type { SimState } from './state.ts';
import { type FixedCatalogue, World } from './world/index.ts';

export { SimControlClient, type SimControlTarget } from './control-client.ts';
export type { SimAnswer, SimDialect, SimEndpoint } from './dialect.ts';
export { SimConfigError } from './errors.ts';
export type { SimFaultRates } from './faults.ts';
export type { PlanName, SimKeySpec, SimPlan } from './keys.ts';
export { DEMO_KEYS, describePlan, parsePlan } from './keys.ts';
export type { RequestLogEntry } from './request-log.ts';
export type { FixedCatalogue } from './world/index.ts';

export interface SimulatorOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default 1; the same seed (and start day) gives the same world. */
  seed?: number;
  /** Default DEMO_KEYS. */
  keys?: SimKeySpec[];
  /** Default 1; sim time = startAt + realElapsed * speed. 0 freezes the clock (tests advance it). */
  speed?: number;
  /** Start of the sim clock; default now. */
  startAt?: Date | string;
  /** Token of the /_sim/ control endpoint; default random hex. */
  adminToken?: string;
  /** Books in the (shared) account catalogue; default 12. */
  books?: number;
  /** ARC campaigns; default 2. */
  campaigns?: number;
  /** Books (ASINs, marketplaces) and campaign ids to serve as given, before the generated ones. */
  fixed?: FixedCatalogue;
  faults?: SimFaultRates;
  /** Entries kept in the request log; default 100,000. */
  requestLogLimit?: number;
  /** Serve the world through another contract file (src/tools/probe/serve.ts builds one). */
  dialect?: SimDialect;
}

export interface RunningSimulator {
  readonly url: string;
  readonly port: number;
  readonly adminToken: string;
  /** Sim time in epoch ms. */
  readonly clock: { now(): number };
  /** What it serves: the account's books and the ARC campaigns. */
  readonly catalogue: {
    books: readonly { asin: string; title: string; marketplaces: readonly string[] }[];
    campaigns: readonly { campaignId: string; asin: string }[];
  };
  /** Closes the server, its open sockets and pending slow answers. */
  close(): Promise<void>;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new SimConfigError(message);
}

function startMsOf(startAt: Date | string | undefined): number {
  if (startAt === undefined) return Date.now();
  const ms = startAt instanceof Date ? startAt.getTime() : Date.parse(startAt);
  check(Number.isFinite(ms), `startAt must be a date or an ISO timestamp, got "${String(startAt)}"`);
  return ms;
}

function checkRates(rates: SimFaultRates): void {
  for (const name of ['errorRate', 'htmlRate', 'slowRate', 'malformedRate'] as const) {
    const value = rates[name];
    check(
      value === undefined || (value >= 0 && value <= 1),
      `faults.${name} must be from 0 to 1, got ${value}`,
    );
  }
  check(rates.slowMs === undefined || rates.slowMs >= 0, 'faults.slowMs must not be negative');
}

function buildState(options: SimulatorOptions): SimState {
  const seed = options.seed ?? 1;
  const books = options.books ?? 12;
  const campaigns = options.campaigns ?? 2;
  const speed = options.speed ?? 1;
  check(Number.isSafeInteger(seed), `seed must be a whole number, got ${seed}`);
  check(
    Number.isSafeInteger(books) && books >= 1 && books <= 100_000,
    `books must be 1 to 100000, got ${books}`,
  );
  check(
    Number.isSafeInteger(campaigns) && campaigns >= 0 && campaigns <= 1000,
    `campaigns must be 0 to 1000, got ${campaigns}`,
  );
  check(Number.isFinite(speed) && speed >= 0, `speed must be a number of at least 0, got ${speed}`);
  checkRates(options.faults ?? {});
  const startMs = startMsOf(options.startAt);
  const world = new World({
    seed,
    books,
    campaigns,
    startMs,
    ...(options.fixed === undefined ? {} : { fixed: options.fixed }),
  });
  const adminToken = options.adminToken ?? randomBytes(16).toString('hex');
  check(adminToken.length > 0, 'adminToken must not be empty');
  return {
    world,
    clock: new SimClock(startMs, speed),
    keys: new KeyRegistry(options.keys ?? DEMO_KEYS),
    limits: new LimitCounter(),
    faults: new FaultInjector(world.rng, options.faults ?? {}),
    log: new RequestLog(options.requestLogLimit ?? 100_000),
    invites: new InviteStore(world.rng),
    adminToken,
    pendingDelays: new Set(),
    dialect: options.dialect,
  };
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts the simulator of the assumed Publishing Analytics API on a real HTTP port. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const state = buildState(options);
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://simulator.invalid');
    } catch {
      send(
        res,
        400,
        {},
        JSON.stringify(errorBody('invalid_request', 'the request target is not a valid URL')),
      );
      return;
    }
    readBody(req)
      .then((bodyText) => {
        if (url.pathname === '/_sim' || url.pathname.startsWith('/_sim/')) {
          handleControl(state, req, res, url, bodyText);
          return;
        }
        return handleApi(state, req, res, url, bodyText);
      })
      .catch((error: unknown) => internalError(res, error));
  });
  server.keepAliveTimeout = 5000;
  const address = await listen(server, options.port ?? 0, host);
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    adminToken: state.adminToken,
    clock: { now: () => state.clock.now() },
    catalogue: {
      books: state.world.catalogue.books.map(({ asin, title, marketplaces }) => ({
        asin,
        title,
        marketplaces,
      })),
      campaigns: state.world.catalogue.campaigns.map(({ campaignId, asin }) => ({ campaignId, asin })),
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        for (const finish of [...state.pendingDelays]) finish();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
