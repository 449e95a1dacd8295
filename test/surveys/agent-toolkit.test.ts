import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolkitAgent, type ToolkitAgent } from '../helpers/agent-toolkit.js';
import { type Harness, startHarness } from '../helpers/harness.js';

/** PostHog's agent toolkit survey tools, unchanged, against Burrow on loopback. */
let h: Harness;
let agent: ToolkitAgent;

beforeAll(async () => {
  h = await startHarness();
  const url = await h.app.listen({ host: '127.0.0.1', port: 0 });
  agent = await startToolkitAgent(h, url, ['survey:write', 'feature_flag:write']);
}, 60_000);
afterAll(async () => h?.close());

const call = (name: string, params: unknown) => agent.call(name, params);

describe('@posthog/agent-toolkit survey tools against Burrow', () => {
  it('creates, lists, reads, updates, counts and deletes a survey', async () => {
    const created = await call('survey-create', {
      name: 'Toolkit NPS',
      type: 'popover',
      questions: [{ type: 'rating', question: 'Recommend us?', scale: 10, display: 'number' }],
    });
    expect(created.name).toBe('Toolkit NPS');
    const id = created.id;
    const all = await call('surveys-get-all', {});
    expect(JSON.stringify(all)).toContain(id);
    const got = await call('survey-get', { surveyId: id });
    expect(got.questions[0].question).toBe('Recommend us?');
    const updated = await call('survey-update', { surveyId: id, name: 'Toolkit NPS 2' });
    expect(updated.name).toBe('Toolkit NPS 2');
    const stats = await call('survey-stats', { survey_id: id });
    expect(JSON.stringify(stats)).not.toMatch(/error/i);
    const global = await call('surveys-global-stats', {});
    expect(typeof global).toBe('object');
    // The toolkit's delete is PostHog's soft delete: the survey is archived.
    await call('survey-delete', { surveyId: id });
    const after = await h.request('GET', `/api/projects/${h.boot.project_id}/surveys/${id}/`);
    expect(after.json().archived).toBe(true);
  }, 60_000);
});
