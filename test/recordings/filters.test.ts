import { describe, expect, it } from 'vitest';
import { parseRecordingFilters } from '../../src/domain/recordings/filters.js';
import { checkDateFilter, resolveDateFilter } from '../../src/domain/time/date-filter.js';
import { ApiError } from '../../src/errors.js';

/** The first validation problem of a filters object, as the API would report it. */
function problem(filters: unknown, path = 'filters') {
  try {
    parseRecordingFilters(filters, path);
  } catch (error) {
    if (error instanceof ApiError)
      return { status: error.status, code: error.code, attr: error.attr, detail: error.detail };
    throw error;
  }
  return null;
}

const group = (...values: unknown[]) => ({
  filter_group: { type: 'AND', values: [{ type: 'AND', values }] },
});
const inner = 'filters__filter_group__values__0__values__0';

describe('recording filters are validated, not stored as a blob', () => {
  it('accepts the three spellings PostHog uses and keeps only known keys', () => {
    const universal = {
      date_from: '-7d',
      duration: [{ type: 'recording', key: 'active_seconds', value: 5, operator: 'gt' }],
      filter_test_accounts: true,
      order: 'click_count',
      order_direction: 'ASC',
      ...group(
        {
          type: 'events',
          id: '$pageview',
          name: '$pageview',
          properties: [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }],
        },
        { type: 'person', key: 'email', value: 'x@y.z', operator: 'icontains' },
        { type: 'log_entry', key: 'level', value: ['warn', 'error'], operator: 'exact' },
      ),
      something_else: 1,
    };
    const { stored, query } = parseRecordingFilters(universal, 'filters');
    expect(stored).not.toHaveProperty('something_else');
    expect(stored.filter_group).toEqual(universal.filter_group);
    expect(query).toMatchObject({
      dateFrom: '-7d',
      dateTo: null,
      order: 'click_count',
      direction: 'ASC',
      filterTestAccounts: true,
    });

    const legacy = parseRecordingFilters(
      {
        events: [{ id: 'x', type: 'events' }],
        session_recording_duration: { type: 'recording', key: 'duration', value: 60, operator: 'gt' },
        duration_type_filter: 'active_seconds',
        console_logs: ['error'],
      },
      'filters',
    ).query;
    expect(legacy.dateFrom).toBe('-3d');
    expect(JSON.stringify(legacy.where)).toContain('"metric":"active_seconds"');
    expect(JSON.stringify(legacy.where)).toContain('"levels":["error"]');
  });

  it.each([
    ['not an object', [], { attr: 'filters', code: 'not_a_dict' }],
    [
      'an unknown operator',
      group({ type: 'event', key: 'k', value: 'v', operator: 'resembles' }),
      { attr: `${inner}__operator`, code: 'invalid_choice' },
    ],
    ['a missing key', group({ type: 'event', value: 'v' }), { attr: `${inner}__key`, code: 'required' }],
    ['a blank key', group({ type: 'person', key: '', value: 'v' }), { attr: `${inner}__key`, code: 'blank' }],
    [
      'a missing value',
      group({ type: 'event', key: 'k', operator: 'exact' }),
      { attr: `${inner}__value`, code: 'required' },
    ],
    [
      'an empty value list',
      group({ type: 'event', key: 'k', value: [], operator: 'exact' }),
      { attr: `${inner}__value`, code: 'empty' },
    ],
    [
      'a non-number for gt',
      group({ type: 'event', key: 'k', value: 'many', operator: 'gt' }),
      { attr: `${inner}__value`, code: 'invalid_input' },
    ],
    [
      'an object as a value',
      group({ type: 'event', key: 'k', value: { a: 1 } }),
      { attr: `${inner}__value`, code: 'invalid_input' },
    ],
    [
      'a broken regex',
      group({ type: 'event', key: 'k', value: '(', operator: 'regex' }),
      { attr: `${inner}__value`, code: 'invalid_input' },
    ],
    [
      'an unknown filter type',
      group({ type: 'weather', key: 'k' }),
      { attr: `${inner}__type`, code: 'invalid_choice' },
    ],
    [
      'a group property filter (not supported yet)',
      group({ type: 'group', key: 'name', value: 3, group_type_index: 0 }),
      { attr: `${inner}__type`, code: 'invalid_input' },
    ],
    [
      'a cohort filter without a cohort id',
      group({ type: 'cohort', key: 'id', value: 'three' }),
      { attr: `${inner}__value`, code: 'invalid_input' },
    ],
    [
      'an action id that is not one',
      group({ type: 'actions', id: 'seven' }),
      { attr: `${inner}__id`, code: 'invalid' },
    ],
    [
      'an unknown recording key',
      { duration: [{ type: 'recording', key: 'mood', value: 1 }] },
      { attr: 'filters__duration__0__key', code: 'invalid_choice' },
    ],
    [
      'a negative duration',
      { duration: [{ type: 'recording', key: 'duration', value: -1, operator: 'gt' }] },
      { attr: 'filters__duration__0__value', code: 'min_value' },
    ],
    [
      'a duration operator that makes no sense',
      { duration: [{ type: 'recording', key: 'duration', value: 1, operator: 'icontains' }] },
      { attr: 'filters__duration__0__operator', code: 'invalid_choice' },
    ],
    [
      'an unknown console level',
      { console_logs: ['shout'] },
      { attr: 'filters__console_logs__0', code: 'invalid_choice' },
    ],
    [
      'console message search',
      group({ type: 'log_entry', key: 'message', value: 'boom', operator: 'icontains' }),
      { attr: `${inner}__key` },
    ],
    ['a bad date', { date_from: 'yesterday' }, { attr: 'filters__date_from' }],
    ['an impossible date', { date_to: '2024-02-30' }, { attr: 'filters__date_to' }],
    ['an unknown order', { order: 'colour' }, { attr: 'filters__order', code: 'invalid_choice' }],
    [
      'an unknown direction',
      { order_direction: 'UP' },
      { attr: 'filters__order_direction', code: 'invalid_choice' },
    ],
    ['a bad operand', { operand: 'XOR' }, { attr: 'filters__operand', code: 'invalid_choice' }],
    [
      'a non-boolean test account switch',
      { filter_test_accounts: 'yes' },
      { attr: 'filters__filter_test_accounts' },
    ],
    [
      'a group that is not a list',
      { filter_group: { type: 'AND', values: 'all' } },
      { attr: 'filters__filter_group__values', code: 'not_a_list' },
    ],
    ['a non-string session id', { session_ids: [1] }, { attr: 'filters__session_ids__0' }],
    [
      'an event property of the wrong kind',
      group({ type: 'events', id: 'x', properties: [{ type: 'person', key: 'k', value: 'v' }] }),
      { attr: `${inner}__properties__0` },
    ],
  ])('refuses %s', (_name, filters, expected) => {
    expect(problem(filters)).toMatchObject({ status: 400, ...expected });
  });

  it('bounds the size of a filter tree', () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ type: 'event', key: `k${i}`, value: 'v' }));
    expect(problem({ properties: many })).toMatchObject({
      status: 400,
      attr: 'filters__properties',
      code: 'max_length',
    });
    let deep: unknown = { type: 'event', key: 'k', value: 'v' };
    for (let i = 0; i < 7; i++) deep = { type: 'AND', values: [deep] };
    expect(problem({ filter_group: deep })).toMatchObject({ status: 400 });
  });
});

describe('date expressions', () => {
  const now = new Date('2026-03-15T12:34:56.000Z');
  const at = (v: string, end = false, tz = 'UTC') =>
    resolveDateFilter(v, { timezone: tz, now }, end)?.toISOString();

  it('reads relative, absolute and open dates', () => {
    expect(at('-7d')).toBe('2026-03-08T12:34:56.000Z');
    expect(at('-24h')).toBe('2026-03-14T12:34:56.000Z');
    expect(at('-1m')).toBe('2026-02-15T12:34:56.000Z');
    expect(at('-30M')).toBe('2026-03-15T12:04:56.000Z');
    expect(at('dStart')).toBe('2026-03-15T00:00:00.000Z');
    expect(at('-1dEnd')).toBe('2026-03-14T23:59:59.999Z');
    // PostHog's relative_date_parse sets only the day for mStart: the time of day stays.
    expect(at('-1mStart')).toBe('2026-02-01T12:34:56.000Z');
    expect(at('all')).toBeUndefined();
    expect(at('2026-01-02')).toBe('2026-01-02T00:00:00.000Z');
    expect(at('2026-01-02', true)).toBe('2026-01-02T23:59:59.999Z');
    expect(at('2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05.000Z');
    expect(at('2026-01-02T03:04:05+02:00')).toBe('2026-01-02T01:04:05.000Z');
  });

  it("reads dates without an offset in the project's time zone, across DST", () => {
    expect(at('2026-01-02', false, 'America/New_York')).toBe('2026-01-02T05:00:00.000Z');
    expect(at('2026-07-02 10:00', false, 'Europe/Berlin')).toBe('2026-07-02T08:00:00.000Z');
    expect(at('dStart', false, 'Asia/Kolkata')).toBe('2026-03-14T18:30:00.000Z');
  });

  it('refuses what is not a date', () => {
    for (const bad of ['soon', '-7', '2026-13-01', '2026-01-01T25:00', '7 days ago', '-7x']) {
      expect(() => checkDateFilter(bad, 'date_from')).toThrow(ApiError);
    }
    // A unit alone is PostHog's "now" moved by nothing, as date ranges of insights read it.
    expect(checkDateFilter('d', 'date_from')).toBe('d');
    expect(at('d')).toBe(now.toISOString());
  });
});
