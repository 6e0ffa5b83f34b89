/**
 * A private redis-server must not outlive the process that started it, even when that process is
 * SIGKILLed (vitest SIGKILLs a worker that does not stop within 0.5 s; a user may kill -9 a demo):
 * a cluster test once left a redis-server running after `npm test` this way.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { redisAnswers } from '../../src/tools/demo/redis.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** True while a redis-server answers on loopback at `port`. */
function answers(port: number): Promise<boolean> {
  return redisAnswers(`redis://127.0.0.1:${port}`);
}

it('a private redis-server ends when the process that started it is SIGKILLed', async () => {
  const holder = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { startPrivateRedis } from './src/tools/private-redis.ts';
       const redis = await startPrivateRedis();
       process.stdout.write('port ' + redis.port + '\\n');
       setInterval(() => {}, 60_000);`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  holder.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  let port = 0;
  try {
    const deadline = Date.now() + 15_000;
    while (port === 0) {
      if (Date.now() > deadline || holder.exitCode !== null) throw new Error(`no port printed: ${output}`);
      port = Number(/port (\d+)/.exec(output)?.[1] ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await answers(port)).toBe(true);
    const exited = once(holder, 'exit');
    holder.kill('SIGKILL');
    await exited;
    const gone = Date.now() + 5_000;
    while ((await answers(port)) && Date.now() < gone)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await answers(port), 'redis-server still answering after its parent was killed').toBe(false);
  } finally {
    if (holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
    if (port !== 0 && (await answers(port))) {
      const redis = new Redis({ port, host: '127.0.0.1', retryStrategy: () => null });
      redis.on('error', () => {});
      await redis.call('SHUTDOWN', 'NOSAVE').catch(() => {});
      redis.disconnect();
    }
  }
}, 30_000);
