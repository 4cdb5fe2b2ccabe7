/**
 * A task run on demand, never twice at once: a demand while it runs queues one more run, and any
 * number of demands meanwhile share that run. A server that says "my tools changed" 2,000 times
 * in a burst gets its tools read twice, not 2,000 times.
 */

/** `run` behind a trigger: at most one run at a time and at most one waiting. `run` must not reject. */
export function coalesced(run: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  async function loop(): Promise<void> {
    running = true;
    try {
      // Each turn takes every demand made before it starts; a demand during it asks for one more.
      do {
        again = false;
        await run();
      } while (again);
    } finally {
      running = false;
    }
  }
  return () => {
    if (running) {
      again = true;
      return;
    }
    void loop();
  };
}
