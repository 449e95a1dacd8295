import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Everything that stores a user's regex refuses, on save, a pattern RE2 (ClickHouse's match())
 * cannot run, with a 400 naming the field; and conditions naming a cohort of another project, or
 * none, are refused instead of saved (they used to be 201, then `errorsWhileComputingFlags`).
 */
describe(`regexes and cohort references refused on save (${backend})`, () => {
  let h: Harness;
  let project: number;
  let ownCohort: number;
  let otherCohort: number;
  let other: { key: string; projectId: number };

  const LOOKAHEAD = 'pro(?=fessional)';
  const UNSUPPORTED: Array<[string, RegExp]> = [
    [LOOKAHEAD, /unsupported Perl syntax/],
    ['(a)\\1', /invalid escape sequence/],
    ['a{1000}'.repeat(100), /too complex/],
    ['a'.repeat(5_000), /longer than 4000 characters/],
  ];

  const personCohort = (value: unknown, operator = 'regex') => ({
    name: 'c',
    filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value, operator }] } },
  });
  const flagWith = (properties: unknown[]) => ({
    key: `f-${Math.random().toString(36).slice(2)}`,
    filters: { groups: [{ properties, rollout_percentage: 100 }] },
  });

  beforeAll(async () => {
    h = await startHarness();
    project = h.boot.project_id;
    const own = await h.request('POST', `/api/projects/${project}/cohorts/`, {
      body: personCohort('^pro', 'regex'),
    });
    expect(own.statusCode, own.body).toBe(201);
    ownCohort = own.json().id;
    other = await h.owner('Neighbour');
    const theirs = await h.request('POST', `/api/projects/${other.projectId}/cohorts/`, {
      key: other.key,
      body: personCohort('^pro'),
    });
    expect(theirs.statusCode, theirs.body).toBe(201);
    otherCohort = theirs.json().id;
  });
  afterAll(async () => h?.close());

  const refused = (res: { statusCode: number; json(): unknown }, attr: string, detail: RegExp) => {
    expect(res.statusCode).toBe(400);
    const body = res.json() as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'validation_error', attr });
    expect(body.detail).toMatch(detail);
  };

  it('feature flags: a pattern RE2 cannot run is a 400 on create and update', async () => {
    for (const [pattern, why] of UNSUPPORTED) {
      const res = await h.request('POST', `/api/projects/${project}/feature_flags/`, {
        body: flagWith([{ type: 'person', key: 'plan', value: pattern, operator: 'not_regex' }]),
      });
      refused(res, 'filters', why);
      expect(res.json()).toMatchObject({ code: 'invalid_value' });
    }
    const ok = await h.request('POST', `/api/projects/${project}/feature_flags/`, {
      body: flagWith([{ type: 'person', key: 'plan', value: '(?i)^pro', operator: 'regex' }]),
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const patch = await h.request('PATCH', `/api/projects/${project}/feature_flags/${ok.json().id}/`, {
      body: {
        filters: {
          groups: [{ properties: [{ type: 'person', key: 'plan', value: LOOKAHEAD, operator: 'regex' }] }],
        },
      },
    });
    refused(patch, 'filters', /unsupported Perl syntax/);
  });

  it('a match too costly for the value makes that flag err, not the others (and takes no time)', async () => {
    const create = (key: string, value: string) =>
      h.request('POST', `/api/projects/${project}/feature_flags/`, {
        body: {
          key,
          filters: {
            groups: [
              {
                properties: [{ type: 'person', key: 'long', value, operator: 'regex' }],
                rollout_percentage: 100,
              },
            ],
          },
        },
      });
    expect((await create('costly', 'a.{1000}$x')).statusCode).toBe(201);
    expect((await create('cheap', '^b+$')).statusCode).toBe(201);
    const started = performance.now();
    const res = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: {
        token: h.boot.project_api_key,
        distinct_id: 'long-value',
        person_properties: { long: 'b'.repeat(50_000) },
        flag_keys_to_evaluate: ['costly', 'cheap'],
      },
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    const body = res.json();
    expect(body.errorsWhileComputingFlags).toBe(true);
    expect(body.flags.costly).toMatchObject({ enabled: false, reason: { code: 'evaluation_error' } });
    expect(body.flags.cheap).toMatchObject({ enabled: true });
    for (const key of ['costly', 'cheap']) {
      const id = (await h.request('GET', `/api/projects/${project}/feature_flags/${key}/`)).json().id;
      await h.request('PATCH', `/api/projects/${project}/feature_flags/${id}/`, { body: { deleted: true } });
    }
  });

  it('cohorts: person-property patterns (new filters and legacy groups) are checked', async () => {
    refused(
      await h.request('POST', `/api/projects/${project}/cohorts/`, { body: personCohort(LOOKAHEAD) }),
      'filters',
      /Invalid regular expression/,
    );
    refused(
      await h.request('POST', `/api/projects/${project}/cohorts/`, {
        body: {
          name: 'legacy',
          groups: [{ properties: [{ type: 'person', key: 'plan', value: '(a)\\1', operator: 'regex' }] }],
        },
      }),
      'groups',
      /invalid escape sequence/,
    );
    refused(
      await h.request('PATCH', `/api/projects/${project}/cohorts/${ownCohort}/`, {
        body: personCohort(LOOKAHEAD, 'not_regex'),
      }),
      'filters',
      /Invalid regular expression/,
    );
  });

  it('actions: URL, text and href patterns and step property filters are checked', async () => {
    const post = (step: object) =>
      h.request('POST', `/api/projects/${project}/actions/`, { body: { name: 'a', steps: [step] } });
    refused(await post({ url: LOOKAHEAD, url_matching: 'regex' }), 'steps__0__url', /Perl syntax/);
    refused(await post({ text: LOOKAHEAD, text_matching: 'regex' }), 'steps__0__text', /Perl syntax/);
    refused(await post({ href: '(a)\\1', href_matching: 'regex' }), 'steps__0__href', /escape/);
    refused(
      await post({
        properties: [{ type: 'event', key: '$current_url', value: LOOKAHEAD, operator: 'regex' }],
      }),
      'steps__0__properties',
      /Perl syntax/,
    );
    // The same text is fine when it is not a regex.
    expect((await post({ url: LOOKAHEAD, url_matching: 'contains' })).statusCode).toBe(201);
  });

  it('recording filters and playlists, batch export filters and path cleaning rules are checked', async () => {
    const playlist = await h.request('POST', `/api/projects/${project}/session_recording_playlists/`, {
      body: {
        type: 'filters',
        filters: { properties: [{ type: 'person', key: 'plan', value: LOOKAHEAD, operator: 'regex' }] },
      },
    });
    expect(playlist.statusCode).toBe(400);
    expect(playlist.json().detail).toMatch(/Perl syntax/);
    const search = await h.request(
      'GET',
      `/api/projects/${project}/session_recordings/?properties=${encodeURIComponent(
        JSON.stringify([{ type: 'person', key: 'plan', value: LOOKAHEAD, operator: 'regex' }]),
      )}`,
    );
    expect(search.statusCode).toBe(400);
    expect(search.json().detail).toMatch(/Perl syntax/);

    const exportRes = await h.request('POST', `/api/projects/${project}/batch_exports/`, {
      body: {
        name: 'x',
        destination: { type: 'NoOp', config: {} },
        interval: 'hour',
        filters: [{ key: 'plan', type: 'event', operator: 'regex', value: LOOKAHEAD }],
      },
    });
    refused(exportRes, 'filters', /Perl syntax/);

    const paths = await h.request('POST', `/api/projects/${project}/query/`, {
      body: {
        query: {
          kind: 'PathsQuery',
          pathsFilter: { localPathCleaningFilters: [{ regex: '/(?=x)', alias: '/x' }] },
        },
      },
    });
    expect(paths.statusCode).toBe(400);
    expect(paths.json().detail).toMatch(/Perl syntax/);
  });

  it("flags refuse another project's cohort, an unknown one and a deleted one", async () => {
    const deleted = await h.request('POST', `/api/projects/${project}/cohorts/`, { body: personCohort('x') });
    await h.request('PATCH', `/api/projects/${project}/cohorts/${deleted.json().id}/`, {
      body: { deleted: true },
    });
    for (const id of [otherCohort, 999_999, deleted.json().id]) {
      const res = await h.request('POST', `/api/projects/${project}/feature_flags/`, {
        body: flagWith([{ type: 'cohort', key: 'id', value: id }]),
      });
      refused(res, 'filters', new RegExp(`Cohort with id ${id} does not exist`));
      expect(res.json()).toMatchObject({ code: 'cohort_does_not_exist' });
    }
    const ok = await h.request('POST', `/api/projects/${project}/feature_flags/`, {
      body: flagWith([{ type: 'cohort', key: 'id', value: ownCohort }]),
    });
    expect(ok.statusCode, ok.body).toBe(201);
    refused(
      await h.request('PATCH', `/api/projects/${project}/feature_flags/${ok.json().id}/`, {
        body: { filters: { groups: [{ properties: [{ type: 'cohort', key: 'id', value: otherCohort }] }] } },
      }),
      'filters',
      /does not exist/,
    );
    // And what was saved evaluates without errors.
    const flags = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: { token: h.boot.project_api_key, distinct_id: 'anyone', person_properties: { plan: 'pro' } },
    });
    expect(flags.json().errorsWhileComputingFlags).toBe(false);
  });

  it("cohorts, actions and playlists refuse another project's cohort too; a cohort may not name itself", async () => {
    const nested = (id: number) => ({
      name: 'nested',
      filters: {
        properties: {
          type: 'OR',
          values: [{ type: 'AND', values: [{ type: 'cohort', key: 'id', value: id, operator: 'in' }] }],
        },
      },
    });
    refused(
      await h.request('POST', `/api/projects/${project}/cohorts/`, { body: nested(otherCohort) }),
      'filters',
      /does not exist/,
    );
    const fine = await h.request('POST', `/api/projects/${project}/cohorts/`, { body: nested(ownCohort) });
    expect(fine.statusCode, fine.body).toBe(201);
    refused(
      await h.request('PATCH', `/api/projects/${project}/cohorts/${fine.json().id}/`, {
        body: nested(fine.json().id),
      }),
      'filters',
      /itself/,
    );
    refused(
      await h.request('POST', `/api/projects/${project}/actions/`, {
        body: {
          name: 'b',
          steps: [{ event: 'e', properties: [{ type: 'cohort', key: 'id', value: otherCohort }] }],
        },
      }),
      'steps__0__properties',
      /does not exist/,
    );
    const playlist = await h.request('POST', `/api/projects/${project}/session_recording_playlists/`, {
      body: {
        type: 'filters',
        filters: { properties: [{ type: 'cohort', key: 'id', value: otherCohort, operator: 'in' }] },
      },
    });
    expect(playlist.statusCode).toBe(400);
    expect(playlist.json().detail).toMatch(/does not exist/);
  });
});
