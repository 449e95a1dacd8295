import type { Deps } from '../deps.js';
import { type CountOptions, countDuePlaylists } from './playlist-counter.js';

export interface PlaylistCounter {
  /** Count soon (a playlist was created or its filters changed) instead of at the next tick. */
  nudge(): void;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `countDuePlaylists` every `intervalMs` (and when nudged), one pass at a time, off the
 * request path. `intervalMs = 0` turns the counter off.
 */
export function startPlaylistCounter(
  deps: Deps,
  options: CountOptions & { intervalMs: number; onPassError?: (error: unknown) => void },
): PlaylistCounter {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = options.intervalMs <= 0;

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, delay);
    timer.unref();
  };
  function run() {
    if (running) {
      again = true;
      return;
    }
    running = countDuePlaylists(deps, options)
      .then(
        () => undefined,
        (error) => options.onPassError?.(error),
      )
      .finally(() => {
        running = null;
        const soon = again;
        again = false;
        schedule(soon ? 0 : options.intervalMs);
      });
  }
  schedule(0);
  return {
    nudge() {
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
