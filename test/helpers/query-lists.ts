import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** Helpers for the list-kind tests (EventsQuery, ActorsQuery, SessionsQuery) through HTTP. */

export interface RawEvent {
  event: string;
  distinct_id: string;
  timestamp?: string;
  uuid?: string;
  properties?: Record<string, unknown>;
}

/**
 * Sends events through the capture path and waits until the events store shows them all (the
 * pipeline batches writes), counted with a HogQL query over every time.
 */
export async function capture(h: Harness, token: string, projectId: number, batch: RawEvent[], key = h.key) {
  const res = await h.request('POST', '/batch/', { key: null, body: { api_key: token, batch } });
  expect(res.statusCode).toBe(200);
  const marker = new Set(batch.map((e) => e.uuid).filter(Boolean));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const out = await query(
      h,
      projectId,
      {
        kind: 'HogQLQuery',
        query: `SELECT count() FROM events WHERE uuid IN (${[...marker].map((u) => `'${u}'`).join(', ') || "''"})`,
      },
      key,
      { refresh: 'force_blocking' },
    );
    if (marker.size === 0 || out.json().results?.[0]?.[0] === marker.size) return;
    if (Date.now() > deadline) throw new Error('captured events did not become visible');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function query(
  h: Harness,
  projectId: number,
  node: Record<string, unknown>,
  key = h.key,
  extra: Record<string, unknown> = {},
) {
  return h.request('POST', `/api/environments/${projectId}/query/`, {
    key,
    body: { query: node, refresh: 'force_blocking', ...extra },
  });
}

/** Runs a query that must succeed and returns its body. */
export async function ok(h: Harness, projectId: number, node: Record<string, unknown>, key = h.key) {
  const res = await query(h, projectId, node, key);
  if (res.statusCode !== 200) throw new Error(`${res.statusCode}: ${res.body}`);
  return res.json() as {
    results: unknown[][];
    columns: string[];
    types: string[];
    hogql: string;
    clickhouse: string;
    hasMore?: boolean;
    limit?: number;
    offset?: number;
    missing_actors_count?: number | null;
    modifiers: Record<string, unknown>;
  };
}

/** A fresh event uuid so a test can wait for exactly its events. */
export const uuid = (): string => randomUUID();

/** The other organization's project, with its key and capture token. */
export async function otherProject(h: Harness) {
  const other = await h.owner('Other org');
  const res = await h.request('GET', `/api/projects/${other.projectId}/`, { key: other.key });
  expect(res.statusCode).toBe(200);
  return { ...other, token: (res.json() as { api_token: string }).api_token };
}
