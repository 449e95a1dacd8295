import { expect } from 'vitest';
import type { Harness } from './harness.js';

export interface DeletionView {
  id: number;
  scope: string;
  status: string;
  persons: number;
  progress: number;
  steps: Array<{ table: string; rows: number | null; done: boolean }>;
  rows_deleted: number;
  attempts: number;
  error: string | null;
}

/** Waits (up to 20 s) until every background deletion of the project has ended; returns them. */
export async function settledDeletions(h: Harness, projectId: number, key = h.key): Promise<DeletionView[]> {
  for (let i = 0; i < 400; i++) {
    const res = await h.request('GET', `/api/projects/${projectId}/data_deletions/`, { key });
    expect(res.statusCode, res.body).toBe(200);
    const { results } = res.json() as { results: DeletionView[] };
    if (results.every((d) => d.status === 'done' || d.status === 'failed')) return results;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('background deletions did not finish in 20 s');
}
