import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFromDistinctId } from '../../src/domain/ingest/person-uuid.js';
import { launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { eventsOfPerson, listPersons, personIdsByEvent, uniqueUsers } from '../helpers/personless.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const require = createRequire(import.meta.url);

async function until<T>(query: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await query();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Stored events of the project by distinct id, read from the engine (what capture wrote). */
async function stored(h: Harness) {
  return h.stores.events.query<{ event: string; distinct_id: string; person_id: string; properties: string }>(
    `SELECT event, distinct_id, toString(person_id) AS person_id, properties
     FROM ${h.stores.events.table('events')} FINAL WHERE team_id = {t:Int64} ORDER BY timestamp`,
    { params: { t: h.boot.project_id } },
  );
}

/** The real SDKs' personless modes: posthog-js `identified_only`, posthog-node's flag. */
describe(`personless events from posthog-node (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => h?.close());

  it('makes no person for $process_person_profile: false, and one once the distinct id is identified', async () => {
    const project = h.boot.project_id;
    const client = new PostHog(h.boot.project_api_key, { host: base, flushAt: 1, flushInterval: 0 });
    for (let i = 0; i < 3; i++)
      client.capture({
        distinctId: 'trace-7',
        event: '$ai_generation',
        properties: { $process_person_profile: false, $ai_model: 'm', i },
      });
    client.capture({
      distinctId: 'other',
      event: '$pageview',
      properties: { $process_person_profile: false },
    });
    await client.flush();
    const before = await until(
      () => stored(h),
      (r) => r.length === 4,
    );
    expect(before).toHaveLength(4);
    expect(await listPersons(h, project)).toEqual([]);
    for (const r of before) expect(r.person_id).toBe(uuidFromDistinctId(project, r.distinct_id));

    client.identify({
      distinctId: 'user-7',
      properties: { $anon_distinct_id: 'trace-7', email: 'u7@x.test' },
    });
    await client.shutdown();
    const persons = await until(
      () => listPersons(h, project),
      (p) => p.length > 0,
    );
    expect(persons).toHaveLength(1);
    expect(new Set(persons[0]?.distinct_ids)).toEqual(new Set(['user-7', 'trace-7']));
    expect(persons[0]?.properties).toMatchObject({ email: 'u7@x.test' });
    const resolved = await personIdsByEvent(h, project, "event = '$ai_generation'");
    expect(resolved.map((r) => r.personId)).toEqual([persons[0]?.id, persons[0]?.id, persons[0]?.id]);
  });
});

describe.skipIf(!hasChromium)(
  `posthog-js person_profiles: 'identified_only' in Chromium (${backend})`,
  () => {
    let h: Harness;
    let site: Server;
    let page: string;
    beforeAll(async () => {
      h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
      const api = await h.app.listen({ host: '127.0.0.1', port: 0 });
      const bundle = readFileSync(require.resolve('posthog-js/dist/array.full.js'));
      const html = `<!doctype html><html><body><button id="buy">Buy</button>
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(h.boot.project_api_key)}, {
    api_host: ${JSON.stringify(api)},
    person_profiles: 'identified_only',
    capture_pageview: true,
    autocapture: true,
    disable_session_recording: true,
    request_batching: false,
    opt_out_useragent_filter: true, // headless Chromium looks like a bot to posthog-js
  });
</script></body></html>`;
      site = createServer((req, res) => {
        const js = req.url === '/posthog.js';
        res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' });
        res.end(js ? bundle : html);
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      page = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
    });
    afterAll(async () => {
      await new Promise((resolve) => site?.close(resolve));
      await h?.close();
    });

    type Browser = { posthog: { capture(e: string): void; identify(id: string, set: object): void } };

    it('anonymous browsing makes no person; identifying makes one with the earlier events', async () => {
      const project = h.boot.project_id;
      const browser = await launchChromium();
      try {
        const tab = await browser.newPage();
        await tab.goto(page);
        await tab.waitForFunction(
          () => (globalThis as unknown as { posthog?: { __loaded?: boolean } }).posthog?.__loaded === true,
        );
        await tab.click('#buy');
        await tab.evaluate(() => (globalThis as unknown as Browser).posthog.capture('viewed pricing'));
        const anonymous = await until(
          () => stored(h),
          (r) => ['$pageview', 'viewed pricing'].every((e) => r.some((x) => x.event === e)),
        );
        const anonId = anonymous.find((r) => r.event === '$pageview')?.distinct_id as string;
        expect(anonId).toBeTruthy();
        for (const r of anonymous) {
          expect(JSON.parse(r.properties).$process_person_profile).toBe(false);
          expect(r.person_id).toBe(uuidFromDistinctId(project, anonId));
        }
        expect(await listPersons(h, project)).toEqual([]);
        expect(await uniqueUsers(h, project, '$pageview')).toBe(1);

        await tab.evaluate(() => {
          const { posthog } = globalThis as unknown as Browser;
          posthog.identify('user-js', { email: 'js@x.test' });
          posthog.capture('bought');
        });
        const persons = await until(
          () => listPersons(h, project),
          (p) => p.length > 0 && p[0]?.distinct_ids.length === 2,
        );
        expect(persons).toHaveLength(1);
        const person = persons[0];
        expect(new Set(person?.distinct_ids)).toEqual(new Set(['user-js', anonId]));
        expect(person?.properties).toMatchObject({ email: 'js@x.test' });

        await until(
          () => stored(h),
          (r) => r.some((x) => x.event === 'bought'),
        );
        const mine = await eventsOfPerson(h, project, person?.id as string);
        expect(mine).toEqual(
          expect.arrayContaining([`$pageview@${anonId}`, `viewed pricing@${anonId}`, 'bought@user-js']),
        );
        const all = await personIdsByEvent(h, project, '1 = 1');
        expect(new Set(all.map((r) => r.personId))).toEqual(new Set([person?.id]));
        // The anonymous pageview and the identified user are one unique user.
        expect(await uniqueUsers(h, project, '$pageview')).toBe(1);
        await tab.evaluate(() => (globalThis as unknown as Browser).posthog.capture('$pageview'));
        await until(
          () => stored(h),
          (r) => r.filter((x) => x.event === '$pageview').length >= 2,
        );
        expect(await uniqueUsers(h, project, '$pageview')).toBe(1);
      } finally {
        await browser.close();
      }
    }, 60_000);
  },
);
