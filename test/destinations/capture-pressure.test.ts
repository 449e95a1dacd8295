import { describe, expect, it } from 'vitest';
import { createCapturePressure, pressureAfter } from '../../src/domain/destinations/capture-pressure.js';

/** Keeps the event loop busy for `share` of every 10 ms (a spin, then a timer) for `ms`. */
async function load(share: number, ms: number, each?: () => void): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const spinUntil = performance.now() + 10 * share;
    while (performance.now() < spinUntil) {
      // spinning: the loop is busy
    }
    each?.();
    await new Promise((r) => setTimeout(r, 10 * (1 - share)));
  }
}

describe('capture pressure (deliveries yield to capture)', () => {
  const shares = { busyShare: 0.8, releaseShare: 0.5 };

  it('turns on above the busy share with capture, stays on down to the release share', () => {
    const next = (busy: boolean, rows: number, share: number) => pressureAfter(busy, rows, share, shares);
    expect(next(false, 0, 0.99)).toBe(false); // deliveries alone are never pressure
    expect(next(false, 100, 0.7)).toBe(false);
    expect(next(false, 100, 0.85)).toBe(true);
    // Paced deliveries leave the loop two-thirds busy: still on, or they would go at full
    // speed and fill it again (the pressure turned off and on every other sample).
    expect(next(true, 100, 0.65)).toBe(true);
    expect(next(true, 100, 0.45)).toBe(false);
    expect(next(true, 0, 0.99)).toBe(false); // capture stopped
  });

  it('reads the real event loop: a busy loop with capture is pressure, without capture or idle it is not', async () => {
    const p = createCapturePressure({ sampleMs: 50, ...shares });
    try {
      await load(0.95, 300);
      expect(p.busy()).toBe(false);
      await load(0.95, 300, () => p.captured(100));
      expect(p.busy()).toBe(true);
      await load(0.05, 300, () => p.captured(100));
      expect(p.busy()).toBe(false);
    } finally {
      p.stop();
    }
  });
});
