/**
 * The console follows the config in force: `runtime.config` is replaced whole when a revision is
 * applied (app/live-config.ts), so a page reads it per request, never once at start. What is costly
 * to build from it (a router, history readers) is built again only when the config object changed.
 */
import type { Runtime } from '../app/runtime.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';

export function perConfig<T>(
  runtime: Pick<Runtime, 'config'>,
  build: (config: ShelfwatchConfig) => T,
): () => T {
  let built: { config: ShelfwatchConfig; value: T } | undefined;
  return () => {
    const { config } = runtime;
    if (built?.config !== config) built = { config, value: build(config) };
    return built.value;
  };
}
