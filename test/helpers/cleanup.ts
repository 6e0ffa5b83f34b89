import { afterAll, afterEach } from 'vitest';

type Stop = () => Promise<unknown> | unknown;

function stopAll(stops: Stop[]): () => Promise<void> {
  return async () => {
    // Last started, first stopped: a runtime goes before the simulator or Redis it talks to.
    for (const stop of stops.splice(0).reverse()) await stop();
  };
}

/** Returns `defer(stop)`: what a test starts, it hands over to be stopped when that test ends. */
export function stopAfterEach(): (stop: Stop) => void {
  const stops: Stop[] = [];
  afterEach(stopAll(stops));
  return (stop) => {
    stops.push(stop);
  };
}

/** Returns `defer(stop)`: stopped once the file's (or describe's) tests are done. */
export function stopAfterAll(): (stop: Stop) => void {
  const stops: Stop[] = [];
  afterAll(stopAll(stops));
  return (stop) => {
    stops.push(stop);
  };
}
