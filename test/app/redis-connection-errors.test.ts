/**
 * Which worker errors the connection watch puts down to a Redis outage (logged at debug): the
 * connection's own, and BullMQ's lost-lock errors while Redis is down or shortly after it is back.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  isConnectionError,
  isLockLossError,
  LOCK_LOSS_GRACE_MS,
  type RedisConnection,
  watchRedisConnection,
} from '../../src/app/redis-connection.ts';
import { capturingLogger } from '../helpers/log-lines.ts';

// BullMQ 6.7's messages, as lock-manager.js and finished-errors.js build them.
const LOCK_LOSSES = [
  new Error('could not renew lock for job 42'),
  new Error('Missing lock for job repeat:poll-1:1764000000000. moveToFinished'),
  new Error('Lock mismatch for job 42. Cmd moveToFinished from active'),
  new Error('Job 42 is not in the active state. moveToFinished'),
];

function setup() {
  const { logger, lines } = capturingLogger();
  let nowMs = 1_000_000;
  const redis = new EventEmitter();
  // An EventEmitter has the only two methods the watch uses (on, off).
  const watch = watchRedisConnection(
    redis as unknown as Pick<RedisConnection, 'on' | 'off'>,
    logger,
    () => nowMs,
  );
  return { lines, redis, watch, advance: (ms: number) => (nowMs += ms) };
}

describe('the connection watch and worker errors', () => {
  it('knows BullMQ lost-lock messages and nothing else as lock losses', () => {
    for (const error of LOCK_LOSSES) expect(isLockLossError(error)).toBe(true);
    expect(isLockLossError(new Error('Missing key for job 42. moveToFinished'))).toBe(false);
    expect(isLockLossError(new Error('boom'))).toBe(false);
    expect(isConnectionError(LOCK_LOSSES[0])).toBe(false);
  });

  it('counts a Cluster master away (ioredis gave up on it, or it is rejoining) as a connection error', () => {
    // ioredis 5's message once maxRedirections are spent, and a rejoining master's answer.
    const away = [
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      new Error('CLUSTERDOWN The cluster is down'),
    ];
    for (const error of away) expect(isConnectionError(error)).toBe(true);
    expect(isConnectionError(new Error('ERR CLUSTERDOWN in a value'))).toBe(false);
  });

  it('puts lost locks down to the outage while Redis is down and for a grace after; not otherwise', () => {
    const { lines, redis, watch, advance } = setup();
    for (const error of LOCK_LOSSES) expect(watch.explains(error)).toBe(false);
    expect(watch.explains(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    );

    redis.emit('error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    redis.emit('close');
    advance(45_000);
    for (const error of LOCK_LOSSES) expect(watch.explains(error)).toBe(true);
    redis.emit('ready');
    advance(LOCK_LOSS_GRACE_MS);
    expect(watch.explains(LOCK_LOSSES[1])).toBe(true);
    advance(1);
    expect(watch.explains(LOCK_LOSSES[1])).toBe(false);
    expect(watch.explains(new Error('boom'))).toBe(false);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, expect.stringMatching(/^redis connection lost/)],
      [30, 'redis connection restored'],
    ]);
    watch.stop();
  });
});
