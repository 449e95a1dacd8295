import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWindowStart } from '../../src/domain/batch-exports/schedule.js';
import { drain, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const start = (at: string, interval: 'day' | 'week', tz: string, offset: number) =>
  exportWindowStart(new Date(at), interval, tz, offset).toISOString();

describe('offset windows', () => {
  it('moves day windows to the offset hour and week windows to the offset day', () => {
    // 03:00 has not come yet at 02:59, so the window began the day before.
    expect(start('2024-03-01T02:59:00Z', 'day', 'UTC', 3 * 3600)).toBe('2024-02-29T03:00:00.000Z');
    expect(start('2024-03-01T03:00:00Z', 'day', 'UTC', 3 * 3600)).toBe('2024-03-01T03:00:00.000Z');
    // 2024-03-31 is a Sunday: with weeks starting on Monday it belongs to the week of Monday the 25th.
    expect(start('2024-03-31T10:00:00Z', 'week', 'UTC', 86_400)).toBe('2024-03-25T00:00:00.000Z');
    expect(start('2024-04-01T00:00:00Z', 'week', 'UTC', 86_400)).toBe('2024-04-01T00:00:00.000Z');
    // Saturday 18:00 with weeks from Saturday 17:00.
    expect(start('2024-03-30T18:00:00Z', 'week', 'UTC', 6 * 86_400 + 17 * 3600)).toBe(
      '2024-03-30T17:00:00.000Z',
    );
    // Local time: 05:00 in New York (UTC-5 in January) is 10:00 UTC.
    expect(start('2024-01-10T09:00:00Z', 'day', 'America/New_York', 5 * 3600)).toBe(
      '2024-01-09T10:00:00.000Z',
    );
  });
});

/** `offset_day` / `offset_hour`: PostHog's validation, and the windows the scheduler cuts. */
describe(`batch export offsets (${backend})`, () => {
  const clock = testClock('2024-03-06T10:20:00Z');
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness(
      { BATCH_EXPORTS_SCHEDULER: 'false', BATCH_EXPORTS_SETTLE_MS: '0' },
      { now: clock.now },
    );
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
  });
  afterAll(() => h?.close());

  const create = (body: Record<string, unknown>) =>
    h.request('POST', base, {
      body: { name: 'offsets', destination: { type: 'NoOp', config: {} }, interval: 'week', ...body },
    });

  it.each([
    [
      { interval: 'hour', offset_hour: 1 },
      'offset_hour is not applicable for non-daily/weekly intervals',
      'offset_hour',
    ],
    [
      { interval: 'every 5 minutes', offset_hour: 0 },
      'offset_hour is not applicable for non-daily/weekly intervals',
      'offset_hour',
    ],
    [
      { interval: 'day', offset_day: 2 },
      'offset_day is not applicable for non-weekly intervals',
      'offset_day',
    ],
    [{ offset_day: 7 }, 'Ensure this value is less than or equal to 6.', 'offset_day'],
    [{ offset_hour: 24 }, 'Ensure this value is less than or equal to 23.', 'offset_hour'],
    [{ offset_hour: -1 }, 'Ensure this value is greater than or equal to 0.', 'offset_hour'],
  ])('%j → %s', async (body, detail, attr) => {
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', detail, attr });
  });

  it('shows the offsets, keeps the parts an interval change still uses, and PATCHes one part', async () => {
    const res = await create({ offset_day: 2, offset_hour: 5 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ offset_day: 2, offset_hour: 5 });
    const id = res.json().id;
    const patch = (body: Record<string, unknown>) => h.request('PATCH', `${base}${id}/`, { body });
    expect((await patch({ offset_hour: 7 })).json()).toMatchObject({ offset_day: 2, offset_hour: 7 });
    expect((await patch({ interval: 'day' })).json()).toMatchObject({ offset_day: null, offset_hour: 7 });
    expect((await patch({ offset_day: 1 })).json().detail).toBe(
      'offset_day is not applicable for non-weekly intervals',
    );
    expect((await patch({ interval: 'hour' })).json()).toMatchObject({ offset_day: null, offset_hour: null });
    const plain = await create({});
    expect(plain.json()).toMatchObject({ offset_day: null, offset_hour: null });
    await h.request('DELETE', `${base}${id}/`);
    await h.request('DELETE', `${base}${plain.json().id}/`);
  });

  const windows = async (id: string) =>
    (await h.request('GET', `${base}${id}/runs/?after=2000-01-01T00:00:00Z&ordering=data_interval_start`))
      .json()
      .results.map((r: Record<string, string>) => [r.data_interval_start, r.data_interval_end]);

  it('runs day windows from the offset hour', async () => {
    clock.set('2024-03-01T10:20:00Z');
    const id = (await create({ interval: 'day', offset_hour: 3 })).json().id;
    clock.set('2024-03-02T03:00:01Z');
    await drain(schedulerFor(h));
    expect(await windows(id)).toEqual([['2024-03-01T03:00:00.000Z', '2024-03-02T03:00:00.000Z']]);
    await h.request('DELETE', `${base}${id}/`);
  });

  it('runs week windows from the offset day and hour, in local time across a DST change', async () => {
    // Wednesday 6 March; windows start on Mondays at 02:00 in Paris (UTC+1, UTC+2 from 31 March).
    clock.set('2024-03-06T10:20:00Z');
    const res = await create({ offset_day: 1, offset_hour: 2, timezone: 'Europe/Paris' });
    const id = res.json().id;
    clock.set('2024-04-01T00:00:01Z');
    await drain(schedulerFor(h));
    expect(await windows(id)).toEqual([
      ['2024-03-04T01:00:00.000Z', '2024-03-11T01:00:00.000Z'],
      ['2024-03-11T01:00:00.000Z', '2024-03-18T01:00:00.000Z'],
      ['2024-03-18T01:00:00.000Z', '2024-03-25T01:00:00.000Z'],
      ['2024-03-25T01:00:00.000Z', '2024-04-01T00:00:00.000Z'],
    ]);
    await h.request('DELETE', `${base}${id}/`);
  });
});
