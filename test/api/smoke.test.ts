import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

describe(`smoke (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers /api/users/@me/ for the bootstrap key', async () => {
    const res = await h.request('GET', '/api/users/@me/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: h.boot.user_email, team: { id: h.boot.project_id } });
  });
});
