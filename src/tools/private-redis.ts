import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class RedisServerUnavailableError extends Error {
  override readonly name = 'RedisServerUnavailableError';
}

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** The redis-server's process id. */
  readonly pid: number;
  /** Stops the server and removes its working directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  extraArgs?: readonly string[];
  /** How long to wait for the server to accept connections. */
  startTimeoutMs?: number;
  port?: number;
}

export function findRedisServerBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not pick a free port');
  return address.port;
}

const SETPRIV = '/usr/bin/setpriv';

/**
 * A redis-server outlives the process that spawned it unless told otherwise: a test runner that
 * SIGKILLs its worker, or a demo killed with SIGKILL, would leave it running for good. On Linux
 * `setpriv --pdeathsig` (util-linux, on every Debian) makes the kernel send it SIGTERM the moment
 * its parent dies, however that happens; elsewhere only the `exit` hook below covers a normal exit.
 */
function tiedToThisProcess(command: string[]): string[] {
  if (process.platform !== 'linux' || !existsSync(SETPRIV)) return command;
  return [SETPRIV, '--pdeathsig', 'SIGTERM', '--', ...command];
}

/**
 * Starts a throw-away `redis-server` on loopback: no persistence, a free port, its own temp dir.
 * Used by the test setup, the demo and the chaos suite, so none of them touch a shared Redis.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const binary = findRedisServerBinary();
  if (binary === undefined) {
    throw new RedisServerUnavailableError(
      'no Redis: set REDIS_URL to a server you own, or install redis-server (Debian: apt-get install redis-server)',
    );
  }
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--maxmemory-policy',
    'noeviction',
    ...(options.extraArgs ?? []),
  ];
  const [command, ...commandArgs] = tiedToThisProcess([binary, ...args]);
  const child: ChildProcess = spawn(command ?? binary, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let output = '';
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new RedisServerUnavailableError(
            `redis-server did not start within ${timeoutMs} ms: ${output.slice(-500)}`,
          ),
        ),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new RedisServerUnavailableError(`redis-server exited with code ${code}: ${output.slice(-500)}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
