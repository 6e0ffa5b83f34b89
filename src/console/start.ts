import type { Runtime } from '../app/runtime.ts';
import type { ConfigEditor } from './config-editor.ts';
import { buildConsole } from './server.ts';

export interface RunningConsole {
  url: string;
  close(): Promise<void>;
}

/** Builds the console and listens on the configured address (port 0: any free port). */
export async function startConsole(options: {
  runtime: Runtime;
  token: string;
  host: string;
  port: number;
  editor?: ConfigEditor;
}): Promise<RunningConsole> {
  const app = await buildConsole(options);
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    // A port already taken: nothing of this console may stay open behind the error.
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { url: `http://${host}:${port}/`, close: () => app.close() };
}
