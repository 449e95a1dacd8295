import { performance } from 'node:perf_hooks';

/**
 * Whether capture needs this node's event loop now: capture received events in the last sample
 * and the loop was busy for more than `busyShare` of it. Delivery then yields (worker.ts paces
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

export function createCapturePressure(opts: { sampleMs?: number; busyShare?: number } = {}): CapturePressure {
  const busyShare = opts.busyShare ?? 0.8;
  let rows = 0;
  let busy = false;
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    busy = rows > 0 && share > busyShare;
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
