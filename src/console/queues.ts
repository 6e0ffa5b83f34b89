import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../app/runtime.ts';

/**
 * Bull Board for the poll and deliver queues, read-only: its writes (retry, clean, promote) would
 * bypass the console's CSRF tokens; dead letters are retried and purged from the console's page.
 */
export async function mountQueues(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath('/queues');
  createBullBoard({
    queues: [runtime.pollQueue, runtime.deliverQueue].map(
      (queue) => new BullMQAdapter(queue, { readOnlyMode: true }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'shelfwatch queues' } },
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: '/queues' });
}
