import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A worker that exited on its own: restarted like a process supervisor would. */
export interface WorkerCrash {
  slot: number;
  at: number;
  code: number | null;
  /** The last line it wrote (its error). */
  lastLine: string;
}

export interface WorkerKill {
  slot: number;
  reason: 'random' | 'confirmation';
  pid: number;
  at: number;
}

interface Instance {
  slot: number;
  generation: number;
  child: ChildProcess;
  logFile: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `shelfwatch run` worker processes in numbered slots: the real CLI (`node bin/shelfwatch.mjs run
 * --config FILE`), each writing its JSON log straight to a file (so nothing is lost when it is
 * killed), killed with SIGKILL and started again in the same slot.
 */
export class WorkerPool {
  readonly kills: WorkerKill[] = [];
  readonly crashes: WorkerCrash[] = [];
  private readonly killing = new Set<ChildProcess>();
  private stopping = false;
  readonly logFiles: string[] = [];
  /** When each process was spawned, by its log file. */
  readonly spawnedAt = new Map<string, number>();
  private readonly live = new Map<number, Instance>();
  private generation = 0;

  constructor(
    private readonly options: {
      configPath: string;
      logDir: string;
      env: Record<string, string>;
      slots: number;
    },
  ) {}

  get slots(): number {
    return this.options.slots;
  }

  startAll(): void {
    for (let slot = 0; slot < this.options.slots; slot += 1) this.start(slot);
  }

  isLive(slot: number): boolean {
    return this.live.has(slot);
  }

  liveSlots(): number[] {
    return [...this.live.keys()];
  }

  start(slot: number): void {
    if (this.live.has(slot)) return;
    this.generation += 1;
    const logFile = join(this.options.logDir, `worker-${slot}-${this.generation}.log`);
    this.logFiles.push(logFile);
    this.spawnedAt.set(logFile, Date.now());
    const fd = openSync(logFile, 'a');
    const child = spawn(
      process.execPath,
      ['bin/shelfwatch.mjs', 'run', '--config', this.options.configPath, '--log-level', 'info'],
      {
        stdio: ['ignore', fd, fd],
        env: { ...process.env, REDIS_URL: '', SHELFWATCH_CONFIG: '', ...this.options.env },
      },
    );
    closeSync(fd);
    const exit = once(child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    }));
    const instance: Instance = { slot, generation: this.generation, child, logFile, exit };
    this.live.set(slot, instance);
    void exit.then(({ code }) => {
      if (this.live.get(slot) === instance) this.live.delete(slot);
      if (this.killing.has(child) || this.stopping) return;
      const lines = readFileSync(logFile, 'utf8').trim().split('\n');
      this.crashes.push({ slot, at: Date.now(), code, lastLine: (lines.at(-1) ?? '').slice(0, 300) });
      setTimeout(() => {
        if (!this.stopping) this.start(slot);
      }, 1_000);
    });
  }

  /** SIGKILL: no shutdown hook runs, active jobs are left to BullMQ's stalled-job check. */
  async kill(slot: number, reason: WorkerKill['reason'] = 'random'): Promise<WorkerKill | undefined> {
    const instance = this.live.get(slot);
    if (instance?.child.pid === undefined) return undefined;
    const kill = { slot, reason, pid: instance.child.pid, at: Date.now() };
    this.killing.add(instance.child);
    instance.child.kill('SIGKILL');
    await instance.exit;
    this.kills.push(kill);
    return kill;
  }

  /** SIGTERM to every live worker; their exit codes (null when one had to be killed after `timeoutMs`). */
  async stopAll(timeoutMs: number): Promise<(number | null)[]> {
    this.stopping = true;
    const instances = [...this.live.values()];
    for (const instance of instances) instance.child.kill('SIGTERM');
    return Promise.all(
      instances.map(async (instance) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        const result = await Promise.race([instance.exit, timeout]);
        clearTimeout(timer);
        if (result !== 'timeout') return result.code;
        instance.child.kill('SIGKILL');
        await instance.exit;
        return null;
      }),
    );
  }

  /** SIGKILL to every live worker at once, without waiting: for a process exit handler. */
  killAllNow(): void {
    this.stopping = true;
    for (const instance of this.live.values()) instance.child.kill('SIGKILL');
  }

  /** Kills whatever still runs (cleanup after a failed test). */
  async killAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.live.values()].map(async (instance) => {
        instance.child.kill('SIGKILL');
        await instance.exit;
      }),
    );
  }

  /** Milliseconds from spawn to the "shelfwatch running" line, for every process that got there. */
  startupTimes(): number[] {
    const times: number[] = [];
    for (const file of this.logFiles) {
      const line = readFileSync(file, 'utf8')
        .split('\n')
        .find((l) => l.includes('"msg":"shelfwatch running'));
      const spawned = this.spawnedAt.get(file);
      if (line === undefined || spawned === undefined) continue;
      times.push((JSON.parse(line) as { time: number }).time - spawned);
    }
    return times;
  }

  /** Every log line every worker wrote, in file order. */
  logLines(): string[] {
    return this.logFiles.flatMap((file) => readFileSync(file, 'utf8').split('\n')).filter((l) => l !== '');
  }
}
