/** NO_COLOR / FORCE_COLOR, LOG_LEVEL, and Redis connection errors said as what they are. */
import { createServer, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { CliError } from '../../src/cli/errors.ts';
import { connectRuntime } from '../../src/cli/run.ts';
import { colourWanted } from '../../src/cli/terminal.ts';
import { parseConfig } from '../../src/config/load.ts';
import { createLogger, silentLogger } from '../../src/ops/logger.ts';
import { tempDir, validRaw } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';

const ANSI = '\u001b[';

function runtimeAt(url: string): Runtime {
  const parsed = parseConfig({ ...validRaw(), redis: { url } });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return new Runtime({
    config: parsed.config,
    logger: silentLogger(),
    version: 'test',
    notifiers: new Map(),
  });
}

async function connectError(url: string, timeoutMs = 5_000): Promise<{ message: string; ms: number }> {
  const started = Date.now();
  const error = await connectRuntime(runtimeAt(url), timeoutMs).then(
    () => new Error('connected'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return { message: (error as Error).message, ms: Date.now() - started };
}

describe('colour', () => {
  it('FORCE_COLOR wins, then a non-empty NO_COLOR, then the terminal', () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, true)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(true);
    expect(() => colourWanted({ FORCE_COLOR: 'yes' }, true)).toThrow('FORCE_COLOR expects one of');
  });

  it("the pretty logger colours only when told to (run's logger)", () => {
    const lines = (colorize: boolean) => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      createLogger({ pretty: true, colorize, destination: out }).warn('plain words');
      return text;
    };
    expect(lines(true)).toContain(ANSI);
    const plain = lines(false);
    expect(plain).toContain('plain words');
    expect(plain).not.toContain(ANSI);
  });

  it('a bad FORCE_COLOR or LOG_LEVEL is one line and exit 2', { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    const config = writeConfig(tempDir(), 'c.yaml', validRaw());
    const [force, level] = await Promise.all([
      shelfwatch(['run', '--config', config], { FORCE_COLOR: 'yes' }),
      shelfwatch(['run', '--config', config], { LOG_LEVEL: 'loud' }),
    ]);
    expect(force.code).toBe(2);
    expect(force.stderr).toBe(
      'shelfwatch: FORCE_COLOR expects one of 0, 1, 2, 3, true, false or empty, got "yes"\n',
    );
    expect(level.code).toBe(2);
    expect(level.stderr.trim().split('\n')).toHaveLength(1);
    expect(level.stderr).toContain("value 'loud' from env 'LOG_LEVEL' is invalid");
  });
});

describe('connecting to Redis', () => {
  const silent = createServer((socket: Socket) => {
    sockets.push(socket);
  });
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('says "connection refused" at once, not after the timeout', async () => {
    const { message, ms } = await connectError('redis://127.0.0.1:1', 5_000);
    expect(message).toBe(
      'cannot reach Redis at redis://127.0.0.1:1: connection refused by 127.0.0.1:1 (nothing listens on that port) — start one or set redis.url / REDIS_URL',
    );
    expect(ms).toBeLessThan(2_500);
  });

  it('names a host that does not resolve', async () => {
    const { message } = await connectError('redis://shelfwatch-no-such-host.invalid:6379');
    expect(message).toContain('the host name does not resolve (DNS ');
    expect(message).toContain('shelfwatch-no-such-host.invalid');
  });

  it('says "timed out" when something accepts and never answers', async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const { message } = await connectError(`redis://127.0.0.1:${port}`, 300);
    expect(message).toContain(`timed out: no answer from 127.0.0.1:${port}`);
  });
});
