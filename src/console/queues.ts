import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { QUEUES_CSS, QUEUES_CSS_PATH, QUEUES_JS, QUEUES_JS_PATH, withQueuesA11y } from './queues-a11y.ts';

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
  app.get(QUEUES_CSS_PATH, async (_request, reply) => reply.type('text/css').send(QUEUES_CSS));
  app.get(QUEUES_JS_PATH, async (_request, reply) => reply.type('text/javascript').send(QUEUES_JS));
  // Bull Board's page itself (its HTML, not its API or assets) gets the two files linked in.
  app.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0] ?? '';
    const isPage = path === '/queues' || path === '/queues/' || !/^\/queues\/(api|static)\//.test(path);
    const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html');
    if (!path.startsWith('/queues') || !isPage || !html || typeof payload !== 'string') return payload;
    return withQueuesA11y(payload);
  });
}
