/**
 * Shared tools of the reliability tests: what a clean refusal looks like, a bare HTTP server that
 * answers whatever a test scripts (the simulator never misbehaves in these ways), a Redis dump of a
 * key prefix, and a stream that keeps every pino line. The CLI runs through test/helpers/cli.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll } from 'vitest';

/** Lines of a stack trace or of Node's own crash report: none may reach a user without --verbose. */
const CRASH_MARKERS = [
  /^\s+at /m,
  /node:internal/,
  /^Node\.js v\d/m,
  /triggerUncaughtException/,
  /^\w*Error: /m,
];

/** What a clean refusal looks like: a non-zero exit (not a kill), `shelfwatch: …` lines, no stack. */
export function crashMarkersIn(text: string): string[] {
  return CRASH_MARKERS.filter((marker) => marker.test(text)).map(String);
}

/** A temporary directory removed after the file's tests. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `shelfwatch-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeIn(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

export interface HostileRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

export type HostileHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

export interface HostileServer {
  readonly url: string;
  readonly requests: HostileRequest[];
  /** What every request is answered with from now on. */
  handle(handler: HostileHandler): void;
  /** Destroys every open connection (answers still dripping or stalled end at once). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** A bare HTTP server that plays the API and answers whatever the test's handler writes. */
export async function startHostileServer(): Promise<HostileServer> {
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  let handler: HostileHandler = (_req, res) => {
    res.writeHead(500);
    res.end();
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hostile.invalid');
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
    });
    req.resume();
    req.on('end', () => handler(req, res, url));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolvePromise) => server.close(() => resolvePromise()));
    },
  };
}

/** Answers with a status and a body given as text (so tests can send JSON that JSON.stringify cannot make). */
export function sendText(res: ServerResponse, status: number, text: string | Buffer): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body));
}

/** Everything stored under a key prefix, one entry per key, values as raw bytes. */
export interface RedisDumpEntry {
  key: string;
  type: string;
  /** The value read with the command of its type (GET, HGETALL, LRANGE, SMEMBERS, ZRANGE, XRANGE). */
  contents: Buffer;
  /** DUMP's serialisation (LZF-compressed for long strings, so `contents` is the one to read). */
  dump: Buffer;
}

/** SCANs the prefix and reads every key by its type, BullMQ's job hashes and streams included. */
export async function dumpRedis(redis: Redis, prefix: string): Promise<RedisDumpEntry[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const entries: RedisDumpEntry[] = [];
  for (const key of [...new Set(keys)].sort()) {
    const type = await redis.type(key);
    const parts: Buffer[] = [Buffer.from(key)];
    switch (type) {
      case 'string': {
        const value = await redis.getBuffer(key);
        if (value !== null) parts.push(value);
        break;
      }
      case 'hash': {
        const value = await redis.hgetallBuffer(key);
        for (const [field, item] of Object.entries(value)) parts.push(Buffer.from(field), item);
        break;
      }
      case 'list':
        parts.push(...(await redis.lrangeBuffer(key, 0, -1)));
        break;
      case 'set':
        parts.push(...(await redis.smembersBuffer(key)));
        break;
      case 'zset':
        parts.push(...(await redis.zrangeBuffer(key, 0, -1, 'WITHSCORES')));
        break;
      case 'stream': {
        const items = (await redis.xrangeBuffer(key, '-', '+')) as [Buffer, Buffer[]][];
        for (const [id, fields] of items) parts.push(id, ...fields);
        break;
      }
      case 'none':
        continue; // expired between SCAN and TYPE
      default:
        throw new Error(`dumpRedis: no reader for type ${type} of ${key}`);
    }
    const dump = (await redis.dumpBuffer(key)) ?? Buffer.alloc(0);
    entries.push({ key, type, contents: Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')])), dump });
  }
  return entries;
}

/** Which of the secrets occur in a text or buffer, raw or percent-encoded. */
export function secretsIn(haystack: string | Buffer, secrets: readonly string[]): string[] {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack) : haystack;
  return secrets.filter(
    (secret) =>
      bytes.includes(Buffer.from(secret)) || bytes.includes(Buffer.from(encodeURIComponent(secret))),
  );
}

/** A stream pino writes its JSON lines into; the test reads them back. */
export class LogCapture extends Writable {
  private buffered = '';
  readonly lines: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.buffered += chunk.toString();
    let newline = this.buffered.indexOf('\n');
    while (newline >= 0) {
      this.lines.push(this.buffered.slice(0, newline));
      this.buffered = this.buffered.slice(newline + 1);
      newline = this.buffered.indexOf('\n');
    }
    callback();
  }

  /** Every line parsed; a line that is not JSON fails the test that reads it. */
  records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
