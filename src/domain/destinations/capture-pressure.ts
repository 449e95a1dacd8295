import { performance } from 'node:perf_hooks';

/**
 * Whether capture needs this node's event loop now: capture received events in the last sample
 * and the loop was busy for more than `busyShare` of it; once so, until capture stops or the loop
 * is busy for less than `releaseShare` (hysteresis: the deliveries let go at full speed would
 * themselves fill the loop again, and a pressure that turned off and on every other sample let
 * twice the busy rate through). Delivery then yields (worker.ts paces
 * itself), so a burst of capture is never slowed by the deliveries it causes; they wait, durable
 * in the queue, and go at full speed once capture leaves room. Deliveries alone never count as
 * pressure: with no capture, a backlog drains as fast as the destinations take it.
 */
export interface CapturePressure {
  /** Capture accepted `rows` rows. */
  captured(rows: number): void;
  busy(): boolean;
  stop(): void;
}

export function createCapturePressure(
  opts: { sampleMs?: number; busyShare?: number; releaseShare?: number } = {},
): CapturePressure {
  const busyShare = opts.busyShare ?? 0.8;
  const releaseShare = opts.releaseShare ?? 0.5;
  let rows = 0;
  let busy = false;
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    busy = pressureAfter(busy, rows, share, { busyShare, releaseShare });
    rows = 0;
  }, opts.sampleMs ?? 100);
  timer.unref?.();
  return {
    captured(n) {
      rows += n;
    },
    busy: () => busy,
    stop: () => clearInterval(timer),
  };
}

/** The pressure after a sample in which capture took `rows` rows and the loop was busy `share` of the time. */
export function pressureAfter(
  busy: boolean,
  rows: number,
  share: number,
  shares: { busyShare: number; releaseShare: number },
): boolean {
  return rows > 0 && share > (busy ? shares.releaseShare : shares.busyShare);
}
