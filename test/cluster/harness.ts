import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import type { ShelfwatchConfig } from '../../src/config/schema.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import type { PrivateCluster } from '../../src/tools/private-cluster.ts';
import { type CapturingNotifier, settings } from '../deliver/pipeline-harness.ts';

/** A Runtime whose one channel is `capture`, connected, with its workers started. */
export async function startCapturing(
  config: ShelfwatchConfig,
  capture: CapturingNotifier,
): Promise<{ runtime: Runtime; shutdown: Shutdown }> {
  const runtime = new Runtime({
    config,
    logger: silentLogger(),
    version: 'test',
    clusterPatience: 'worker',
    notifiers: new Map([[capture.id, capture]]),
    channelSettings: new Map([[capture.id, settings({ paceKey: capture.id })]]),
  });
  await runtime.connect(10_000);
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  await startWorkers(runtime, shutdown);
  return { runtime, shutdown };
}

/** Shuts the workers down, then stops the nodes, each whatever the other did. */
export async function stopAll(
  shutdown: Shutdown | undefined,
  clusterStarting: Promise<PrivateCluster> | undefined,
): Promise<void> {
  // Each step runs whatever the previous one did: a failed shutdown must not leave the nodes up.
  const steps = [
    () => shutdown?.run(5_000),
    async () => (await clusterStarting?.catch(() => undefined))?.stop(),
  ];
  const failures: unknown[] = [];
  for (const step of steps)
    await Promise.resolve()
      .then(step)
      .catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw new AggregateError(failures, 'cluster test cleanup failed');
}
