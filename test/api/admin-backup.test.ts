import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * `POST /_admin/backup` (what `burrow backup` calls while the server runs): loopback and the local
 * admin token only, whatever API key is sent; bad bodies and targets are 4xx in PostHog's shape.
 * With DATABASE_URL the route does not exist (pg_dump backs that store up).
 */
describe.skipIf(backend === 'postgres')('the local backup route refuses everyone else', () => {
  let h: Harness;
  let token: string;
  const outside = mkdtempSync(join(tmpdir(), 'burrow-admin-backup-'));
  beforeAll(async () => {
    h = await startHarness();
    token = readFileSync(join(h.config.dataDir, 'admin.token'), 'utf8').trim();
  });
  afterAll(async () => {
    await h?.close();
    rmSync(outside, { recursive: true, force: true });
  });

  const post = (body: unknown, headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
    h.app.inject({ method: 'POST', url: '/_admin/backup', payload: body as object, headers, remoteAddress });

  it('needs the admin token: none, a wrong one or a full-access API key is a 401', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${h.key}`]) {
      const res = await post({ dir: join(outside, 'a') }, authorization ? { authorization } : {});
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json()).toMatchObject({ type: 'authentication_error', attr: null });
    }
  });

  it('refuses a caller that is not on this machine, even with the token', async () => {
    const res = await post({ dir: join(outside, 'b') }, { authorization: `Bearer ${token}` }, '203.0.113.9');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ type: 'authentication_error' });
  });

  it('answers malformed bodies and bad targets with a 400 naming the field', async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const body of [{}, { dir: '' }, { dir: 5 }, { dir: 'x'.repeat(5000) }]) {
      const res = await post(body, auth);
      expect(res.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error' });
    }
    const inside = await post({ dir: join(h.config.dataDir, 'backup') }, auth);
    expect(inside.statusCode).toBe(400);
    expect(inside.json()).toMatchObject({
      attr: 'dir',
      detail: expect.stringContaining('inside the data directory'),
    });
    const relative = await post({ dir: 'backups/today' }, auth);
    expect(relative.statusCode).toBe(400);
    expect(relative.json()).toMatchObject({ attr: 'dir', detail: 'dir must be an absolute path.' });
    // A target that does not exist yet: the refusal must be the unknown field's, not the target's.
    const extra = await post({ dir: join(outside, 'fresh'), force: true }, auth);
    expect(extra.statusCode, extra.body).toBe(400);
    expect(extra.json()).toMatchObject({ type: 'validation_error', attr: 'force' });
  });
});
