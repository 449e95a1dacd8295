import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

const NAMES = Array.from({ length: 50 }, (_, i) => (i === 0 ? '$pageview' : `event ${i}`));
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];

/**
 * The capture benches' event number `i`, as posthog-node sends it: 50 event names, 10k distinct
 * ids, a new uuid, a timestamp within the last day and seven properties.
 */
export function sdkEvent(i: number, persons = 10_000) {
  return {
    event: NAMES[i % NAMES.length],
    distinct_id: `user-${(i * 7919) % persons}`,
    uuid: randomUUID(),
    timestamp: new Date(Date.now() - (i % 86_400) * 1000).toISOString(),
    properties: {
      $lib: 'posthog-node',
      $lib_version: '5.70.0',
      $browser: BROWSERS[i % BROWSERS.length],
      $current_url: `https://shop.test/products/${i % 500}`,
      $session_id: `s-${Math.floor(i / 20)}`,
      plan: i % 3 === 0 ? 'pro' : 'free',
      amount: i % 100,
    },
  };
}

/** Resolves once a server started on `port` answers `/_readyz`. */
export async function untilReady(port: number): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/_readyz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU seconds (user + system) from a `/proc/<pid>[/task/<tid>]/stat` file: a process or one thread. */
export function procCpuSeconds(statPath: string): number {
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime, in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
