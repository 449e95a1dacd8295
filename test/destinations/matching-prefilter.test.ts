import { describe, expect, it } from 'vitest';
import {
  decodeLine,
  eventNamesMatched,
  lineEvent,
  lineTeam,
} from '../../src/domain/destinations/matching.js';
import { encodedEvent } from '../helpers/event-line.js';

/**
 * The matcher skips decoding lines whose event no destination names (enqueue.ts). The name read
 * from the raw line must be the decoded one, or undefined (then the line is decoded): never a
 * different name, which would drop a delivery.
 */
const line = (event: string) => encodedEvent(event, { a: 1 });

describe('reading the event name of an encoded line', () => {
  it('answers the decoded name, or nothing when the name has escapes', () => {
    const names = ['$pageview', 'signed up', 'ünïcødé 🎉', '', 'a"b', 'back\\slash', 'tab\there', '\u2028'];
    for (const name of names) {
      const l = line(name);
      const read = lineEvent(l);
      expect(decodeLine(l).event).toBe(name);
      if (read !== undefined) expect(read).toBe(name);
    }
    expect(lineEvent(line('$pageview'))).toBe('$pageview');
    expect(lineEvent(line('a"b'))).toBeUndefined();
    expect(lineEvent(line('back\\slash'))).toBeUndefined();
    expect(lineEvent('{"other":1}')).toBeUndefined();
  });
});

describe('reading the team of an encoded line', () => {
  it('answers the team id eventLine wrote, or -1', () => {
    expect(lineTeam(line('x'))).toBe(7);
    expect(lineTeam('{"team_id":123456789,"a":1}')).toBe(123456789);
    expect(lineTeam('{"team_id":0}')).toBe(0);
    expect(lineTeam('{"team_id":"x"}')).toBe(-1);
    expect(lineTeam('{"uuid":"u"}')).toBe(-1);
  });

  it("takes the line's own team, never a team_id sent in the event's or person's properties", () => {
    const lineOf = (properties: Record<string, unknown>, personProperties: Record<string, unknown>) =>
      encodedEvent('e', properties, personProperties);
    for (const l of [
      lineOf({ team_id: 8 }, {}),
      lineOf({ a: { team_id: 8 }, 'x"': '"team_id":8', team_id: '8' }, { team_id: 8 }),
      lineOf({ '\\': '\\"', team_id: 8 }, {}),
    ]) {
      expect(JSON.parse(l).team_id).toBe(7);
      expect(lineTeam(l)).toBe(7);
    }
  });
});

describe('the event names destinations can match', () => {
  const actions = new Map([
    [1, [{ event: 'purchase' }, { event: 'refund' }]],
    [2, [{ event: null }]],
  ]) as never;
  it('collects named events and action steps', () => {
    const names = eventNamesMatched(
      [
        { filters: { events: [{ id: 'signed up', type: 'events' }] } },
        { filters: { actions: [{ id: 1, type: 'actions' }] } },
      ],
      [{ steps: [{ event: 'upgrade' }] as never }],
      actions,
    );
    expect(names && [...names].sort()).toEqual(['purchase', 'refund', 'signed up', 'upgrade']);
  });
  it('is null when any destination can match any event', () => {
    expect(eventNamesMatched([{ filters: {} }], [], actions)).toBeNull();
    expect(eventNamesMatched([{ filters: { events: [{ id: null }] } }], [], actions)).toBeNull();
    expect(eventNamesMatched([{ filters: { actions: [{ id: 2 }] } }], [], actions)).toBeNull();
    expect(eventNamesMatched([], [{ steps: [{ event: '' }] as never }], actions)).toBeNull();
  });
});
