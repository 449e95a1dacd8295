import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_EXAMPLES } from '../../src/server/openapi-examples.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

type Operation = { requestBody?: { content: Record<string, { schema: unknown; examples?: unknown }> } };

describe(`OpenAPI request examples (${backend})`, () => {
  let h: Harness;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    h = await startHarness();
    paths = (await h.request('GET', '/api/schema/', { key: null })).json().paths;
  });
  afterAll(async () => {
    await h?.close();
  });

  const media = (method: string, path: string) =>
    paths[path]?.[method.toLowerCase()]?.requestBody?.content['application/json'];

  it('shows HogQL, Trends and Funnels examples on /query', () => {
    const query = media('POST', '/api/projects/{project_id}/query/');
    expect(Object.keys(query?.examples as object)).toEqual(['HogQL', 'Trends', 'Funnels']);
  });

  it('shows examples on the main resources', () => {
    for (const resource of [
      'insights',
      'dashboards',
      'annotations',
      'feature_flags',
      'cohorts',
      'actions',
      'batch_exports',
      'session_recording_playlists',
    ]) {
      expect(media('POST', `/api/projects/{project_id}/${resource}/`)?.examples, resource).toBeDefined();
    }
  });

  it('documents that unknown body fields are accepted (they are ignored, not refused)', async () => {
    const schema = media('POST', '/api/projects/{project_id}/query/')?.schema as Record<string, unknown>;
    expect(schema.additionalProperties).toBeUndefined();
    // Only the bodies that refuse unknown fields (projects, organizations, the local backup) say so.
    const refusing = Object.entries(paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method} ${path}`, op] as const))
      // Request bodies only: a response may describe a stored setting whose items refuse extras.
      .filter(([, op]) =>
        JSON.stringify((op as { requestBody?: unknown }).requestBody ?? {}).includes(
          '"additionalProperties":false',
        ),
      )
      .map(([name]) => name)
      .sort();
    expect(refusing).toEqual([
      'patch /api/environments/{project_id}/',
      'patch /api/organizations/{organization_id}/',
      'patch /api/projects/{project_id}/',
      // The local backup route exists on the embedded stores only (pg_dump backs PostgreSQL up).
      ...(backend === 'postgres' ? [] : ['post /_admin/backup']),
      'post /api/organizations/',
      'post /api/organizations/{organization_id}/projects/',
    ]);
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query: 'SELECT 1' }, not_a_field: true },
    });
    expect(res.statusCode).toBe(200);
  });

  // Every example is a request the server accepts.
  for (const [route, examples] of Object.entries(REQUEST_EXAMPLES)) {
    it(`accepts the examples of ${route}`, async () => {
      const [method, template] = route.split(' ') as [string, string];
      const docPath = template.replace(/:(\w+)/g, '{$1}');
      expect(media(method, docPath)?.examples, docPath).toEqual(examples);
      const url = template.replace(':project_id', String(h.boot.project_id));
      for (const [name, example] of Object.entries(examples)) {
        const res = await h.request(method, url, { body: example.value });
        expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(300);
      }
    });
  }
});
