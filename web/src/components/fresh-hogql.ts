import { api, type HogQLResult } from '../api';

/**
 * A small HogQL query computed now, never served from the query cache: counts that people watch
 * change (a flag's calls, when someone was last seen), and a cached answer would hide new events.
 */
export const freshHogql = (projectId: number, query: string, signal?: AbortSignal) =>
  api<HogQLResult>(
    'POST',
    `/api/environments/${projectId}/query/`,
    { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' },
    { signal },
  );
