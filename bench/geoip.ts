/**
 * GeoIP's cost per captured event (issue 32: under 2 µs), against the raw MMDB reader in the
 * same run. Events come in requests of 100 sharing one address, from a pool of distinct
 * addresses (`--addresses`, default 20 000: more than a day of a mid-size site's visitors), as
 * posthog-js traffic does; `--per-event` gives every event its own address instead (worst case).
 *
 *   npx tsx bench/geoip.ts [--events 1000000] [--addresses 20000] [--per-event] [--json]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Reader } from 'mmdb-lib';
import { geoipFiles, loadGeoip } from '../src/domain/geoip/database.js';
import { createGeoStep } from '../src/domain/geoip/enrich.js';
import type { CaptureEvent } from '../src/domain/ingest/rows.js';
import { reporter } from './lib.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    addresses: { type: 'string', default: '20000' },
    'per-event': { type: 'boolean', default: false },
  },
});
const total = Number(values.events);
const pool = Number(values.addresses);
const perEvent = values['per-event'];

// Public addresses spread over the IPv4 space (a fixed walk).
const addresses = Array.from(
  { length: pool },
  (_, i) => `${((i * 37) % 200) + 11}.${(i * 91) % 256}.${(i >> 3) % 256}.${(i * 7) % 256}`,
);
const requests: CaptureEvent[][] = [];
for (let n = 0, r = 0; n < total; r++) {
  const batch: CaptureEvent[] = [];
  for (let k = 0; k < 100 && n < total; k++, n++)
    batch.push({
      uuid: '',
      event: '$pageview',
      distinctId: `u${n % 5000}`,
      timestamp: '',
      properties: { $ip: addresses[(perEvent ? n : r) % pool], $current_url: 'https://example.com/' },
    });
  requests.push(batch);
}

const step = createGeoStep(() => loadGeoip(geoipFiles(undefined)));
await step.enrich([
  { uuid: '', event: 'warm', distinctId: 'w', timestamp: '', properties: { $ip: '8.8.8.8' } },
]);
const t0 = performance.now();
for (const batch of requests) await step.enrich(batch);
const burrowUs = ((performance.now() - t0) * 1000) / total;

// The raw reader alone, one lookup per request (or per event), nothing cached, nothing written.
const reader = new Reader(readFileSync(geoipFiles(undefined)[0] as string));
const t1 = performance.now();
let found = 0;
for (const batch of requests) {
  if (perEvent) for (const e of batch) found += reader.get(e.properties.$ip as string) ? 1 : 0;
  else found += reader.get(batch[0]?.properties.$ip as string) ? 1 : 0;
}
const rawUs = ((performance.now() - t1) * 1000) / total;
const located = requests.flat().filter((e) => e.properties.$geoip_country_code).length / total;

console.log(
  `${total.toLocaleString()} events, ${pool.toLocaleString()} addresses, ${perEvent ? 'one per event' : 'one per request of 100'}: ` +
    `Burrow's GeoIP step ${burrowUs.toFixed(3)} µs/event (located ${(located * 100).toFixed(1)}%), raw MMDB reader ${rawUs.toFixed(3)} µs/event (${found} found); goal < 2 µs`,
);

const report = reporter('geoip');
const what = `GeoIP enrichment at capture, ${pool} addresses, ${perEvent ? 'an address per event' : 'one address per request of 100'}`;
report({
  case: what,
  metric: 'time per event',
  value: burrowUs,
  unit: 'µs',
  ratio: burrowUs / rawUs,
  against: `the raw MMDB reader, one lookup per ${perEvent ? 'event' : 'request'}`,
  goal: { op: '<', value: 2, issue: 32 },
});
report({ case: what, metric: 'located', value: located * 100, unit: '%' });
