import { Prompts } from '@posthog/ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** `llm_prompts`: CRUD with versions, and the by-name route `@posthog/ai`'s `Prompts` reads. */
describe(`LLM prompts (${backend})`, () => {
  let h: Harness;
  let base: string;
  let path: string;
  beforeAll(async () => {
    h = await startHarness();
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    path = `/api/environments/${h.boot.project_id}/llm_prompts/`;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('creates, versions, lists, reads by name and version, and deletes prompts', async () => {
    const created = await h.request('POST', path, {
      body: { name: 'support-reply', prompt: 'Hello {{name}}' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const v1 = created.json();
    expect(v1).toMatchObject({
      name: 'support-reply',
      prompt: 'Hello {{name}}',
      version: 1,
      is_latest: true,
      version_count: 1,
    });
    const again = await h.request('POST', path, { body: { name: 'support-reply', prompt: 'x' } });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ type: 'validation_error', attr: 'name' });
    expect((await h.request('POST', path, { body: { name: 'bad name/1', prompt: 'x' } })).statusCode).toBe(
      400,
    );

    const messages = [{ role: 'system', content: 'Be brief, {{name}}' }];
    const changed = await h.request('PATCH', `${path}${v1.id}/`, { body: { prompt: messages } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      version: 2,
      prompt: messages,
      latest_version: 2,
      version_count: 2,
    });
    expect(changed.json().id).not.toBe(v1.id);

    const old = (await h.request('GET', `${path}${v1.id}/`)).json();
    expect(old).toMatchObject({ version: 1, is_latest: false, latest_version: 2 });
    const list = (await h.request('GET', path)).json();
    expect(list.count).toBe(1);
    expect(list.results[0]).toMatchObject({ name: 'support-reply', version: 2 });
    const byVersion = await h.request('GET', `${path}name/support-reply/?version=1`);
    expect(byVersion.json().prompt).toBe('Hello {{name}}');
    const versions = (await h.request('GET', `${path}name/support-reply/versions/`)).json();
    expect(versions.results.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    expect((await h.request('GET', `${path}name/support-reply/?token=phc_someone_else`)).statusCode).toBe(
      404,
    );
    expect((await h.request('GET', `${path}name/nope/`)).statusCode).toBe(404);
    expect((await h.request('DELETE', `${path}${v1.id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${path}name/support-reply/`)).statusCode).toBe(404);
    // A name deleted can be created afresh; its versions continue past the deleted ones.
    const reborn = await h.request('POST', path, { body: { name: 'support-reply', prompt: 'new' } });
    expect(reborn.json().version).toBe(3);
  });

  it("serves @posthog/ai's Prompts.get through @current with the project token", async () => {
    await h.request('POST', path, { body: { name: 'greeting', prompt: 'Hi {{who}}!' } });
    const prompts = new Prompts({ personalApiKey: h.key, projectApiKey: h.boot.project_api_key, host: base });
    const text = await prompts.get('greeting', { cacheTtlSeconds: 0 });
    expect(prompts.compile(text as string, { who: 'Ada' })).toBe('Hi Ada!');
    await expect(prompts.get('missing', { cacheTtlSeconds: 0 })).rejects.toThrow(/not found/);
  });
});
