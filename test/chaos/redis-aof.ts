import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisServerBinary, freePort } from '../../src/tools/private-redis.ts';

export interface RedisOutage {
  signal: 'SIGTERM' | 'SIGKILL';
  downAt: number;
  upAt: number;
}

/**
 * A redis-server that survives its own restarts: append-only file with an fsync on every write, a
 * fixed port and a fixed directory, so killing it (SIGTERM or SIGKILL) and starting it again keeps
 * every write it acknowledged. `startPrivateRedis` (src/ops) starts throw-away servers without
 * persistence in a new directory each time, which is why the chaos suite has its own starter.
 */
/** What the chaos run restarts and inspects: one Redis (RestartableRedis) or a Cluster of them. */
export interface ChaosRedis {
  readonly url: string;
  readonly outages: RedisOutage[];
  /** Stops (one master of) it with `signal`, keeps it down for `downMs`, starts it again. */
  restart(signal: 'SIGTERM' | 'SIGKILL', downMs: number): Promise<RedisOutage>;
  killNow(): void;
  dispose(): Promise<void>;
}

export class RestartableRedis implements ChaosRedis {
  readonly outages: RedisOutage[] = [];
  private child: ChildProcess | undefined;

  private constructor(
    private readonly binary: string,
    readonly port: number,
    readonly dir: string,
    private readonly extraArgs: readonly string[],
  ) {}

  /** `extraArgs`: e.g. the Cluster node's (its `nodes.conf` stays in `dir`, so it restarts as itself). */
  static async create(extraArgs: readonly string[] = []): Promise<RestartableRedis> {
    const binary = findRedisServerBinary();
    if (binary === undefined) throw new Error('the chaos suite needs redis-server on PATH');
    const redis = new RestartableRedis(
      binary,
      await freePort(),
      mkdtempSync(join(tmpdir(), 'shelfwatch-chaos-redis-')),
      extraArgs,
    );
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async up(timeoutMs = 15_000): Promise<void> {
    if (this.running) return;
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--maxmemory-policy',
      'noeviction',
      ...this.extraArgs,
    ];
    const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`redis-server did not start within ${timeoutMs} ms: ${output.slice(-500)}`));
      }, timeoutMs);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with code ${code}: ${output.slice(-500)}`));
      });
    });
    // Keep draining its output so a full pipe never blocks the server.
    child.stdout?.resume();
    child.stderr?.resume();
    this.child = child;
  }

  async down(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
    this.child = undefined;
  }

  /** Stops the server with `signal`, keeps it down for `downMs`, starts it again on the same port and dir. */
  async restart(signal: 'SIGTERM' | 'SIGKILL', downMs: number): Promise<RedisOutage> {
    const downAt = Date.now();
    await this.down(signal);
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.up();
    const outage = { signal, downAt, upAt: Date.now() };
    this.outages.push(outage);
    return outage;
  }

  /** SIGKILL without waiting: for a process exit handler. */
  killNow(): void {
    this.child?.kill('SIGKILL');
  }

  async dispose(): Promise<void> {
    await this.down('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** As a Cluster node (startPrivateCluster): stopping it for good is disposing of it. */
  stop(): Promise<void> {
    return this.dispose();
  }
}
