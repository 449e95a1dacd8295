import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDistinctIds, insertEvents, insertGroups, insertPersons } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

type Row = Record<string, unknown>;

// The insert helpers stand in for capture in hundreds of tests: a row they write must be the row
// capture writes for the same event, column for column, or those tests check something capture
// never produces.
describe(`test insert helpers write what capture writes (${backend})`, () => {
  let h: Harness;
  let team: number;
  beforeAll(async () => {
    h = await startHarness();
    team = h.boot.project_id;
  });
  afterAll(async () => {
    await h?.close();
  });

  const read = (table: string, where: string) =>
    h.stores.events.query<Row>(
      `SELECT * FROM ${h.stores.events.table(table)} FINAL WHERE team_id = ${team} AND ${where}`,
    );

  it('events, persons, distinct ids and groups', async () => {
    const captured = randomUUID();
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: {
        api_key: h.boot.project_api_key,
        batch: [
          {
            event: '$groupidentify',
            distinct_id: 'ann',
            timestamp: '2025-06-01T10:00:00.000Z',
            properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme "A"' } },
          },
          {
            uuid: captured,
            event: 'signed up',
            distinct_id: 'ann',
            timestamp: '2025-06-01T10:00:01.250Z',
            properties: {
              plan: 'pro',
              n: 1.5,
              nested: { a: [1, null, 'é\n"'] },
              $session_id: 's1',
              $window_id: 'w1',
              $elements_chain: 'button:nth-child="1"',
              $groups: { company: 'acme' },
              $set: { email: 'ann@example.com' },
            },
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);

    const [event] = await read('events', `uuid = '${captured}'`);
    if (!event) throw new Error('the captured event is missing');
    const copy = randomUUID();
    await insertEvents(h.stores.events, [
      {
        uuid: copy,
        event: event.event as string,
        properties: event.properties as string,
        timestamp: event.timestamp as string,
        team_id: team,
        distinct_id: event.distinct_id as string,
        person_id: event.person_id as string,
        person_properties: event.person_properties as string,
        person_created_at: event.person_created_at as string,
        $group_0: event.$group_0 as string,
        inserted_at: event.inserted_at as string,
      },
    ]);
    const [written] = await read('events', `uuid = '${copy}'`);
    expect({ ...written, uuid: captured }).toEqual(event);
    expect(event).toMatchObject({
      $session_id: 's1',
      $window_id: 'w1',
      elements_chain: 'button:nth-child="1"',
    });

    // Persons, distinct ids and groups: the same rows under other ids. `_timestamp` is the
    // engine's insert time.
    const [person] = await read('person', `id = '${event.person_id}'`);
    if (!person) throw new Error('the captured person is missing');
    const otherPerson = randomUUID();
    await insertPersons(h.stores.events, [
      {
        id: otherPerson,
        team_id: team,
        properties: person.properties as string,
        is_identified: person.is_identified as 0 | 1,
        created_at: person.created_at as string,
        version: person.version as number,
      },
    ]);
    const [personCopy] = await read('person', `id = '${otherPerson}'`);
    expect({ ...personCopy, id: person.id, _timestamp: person._timestamp }).toEqual(person);

    const [pdi] = await read('person_distinct_id2', "distinct_id = 'ann'");
    if (!pdi) throw new Error('the captured distinct id is missing');
    await insertDistinctIds(h.stores.events, [
      {
        team_id: team,
        distinct_id: 'ann-copy',
        person_id: pdi.person_id as string,
        version: pdi.version as number,
      },
    ]);
    const [pdiCopy] = await read('person_distinct_id2', "distinct_id = 'ann-copy'");
    expect({ ...pdiCopy, distinct_id: 'ann', _timestamp: pdi._timestamp }).toEqual(pdi);

    const [group] = await read('groups', "group_key = 'acme'");
    if (!group) throw new Error('the captured group is missing');
    await insertGroups(h.stores.events, [
      {
        team_id: team,
        group_type_index: group.group_type_index as number,
        group_key: 'acme-copy',
        group_properties: group.group_properties as string,
        created_at: group.created_at as string,
        version: group.version as number,
      },
    ]);
    const [groupCopy] = await read('groups', "group_key = 'acme-copy'");
    expect({ ...groupCopy, group_key: 'acme', _timestamp: group._timestamp }).toEqual(group);
  });
});
