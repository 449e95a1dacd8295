/** The console talks to the public API only, authenticated by the login session cookie. */

export interface ApiErrorBody {
  type?: string;
  code?: string;
  detail?: string;
  attr?: string | null;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.detail ?? `Request failed (${status})`);
  }
  get attr() {
    return this.body.attr ?? null;
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function cookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/** Anything that notices the session ended (a 401) sends the person back to the login page. */
const unauthenticated = new Set<() => void>();
export const onUnauthenticated = (fn: () => void) => {
  unauthenticated.add(fn);
  return () => unauthenticated.delete(fn);
};

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  init: { signal?: AbortSignal; quiet401?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // The server checks this header against the session on every request that changes something.
  if (UNSAFE.has(method)) headers['x-csrftoken'] = cookie('burrow_csrftoken') ?? '';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: init.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiFailure(0, { detail: 'Burrow did not answer. Is the server running?' });
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = { detail: text.slice(0, 300) };
  }
  if (!res.ok) {
    if (res.status === 401 && !init.quiet401) for (const fn of unauthenticated) fn();
    // A failed background query answers its status rather than an error body.
    const status = (data as { query_status?: QueryStatus } | undefined)?.query_status;
    const body = status ? { detail: status.error_message ?? 'The query failed.' } : data;
    throw new ApiFailure(res.status, (body ?? {}) as ApiErrorBody);
  }
  return data as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, { signal });

export interface Team {
  id: number;
  uuid: string;
  name: string;
  api_token: string;
  timezone: string;
  session_recording_opt_in: boolean;
  test_account_filters: PropertyFilter[];
  test_account_filters_default_checked: boolean;
  [key: string]: unknown;
}

/** A property filter as PostHog stores it (test account filters, insight filters). */
export interface PropertyFilter {
  key: string;
  type: string;
  operator?: string;
  value?: unknown;
  [field: string]: unknown;
}

export interface Me {
  uuid: string;
  email: string;
  first_name: string;
  has_password: boolean;
  team: Team | null;
  organization: { id: string; name: string; membership_level: number | null } | null;
  organizations: { id: string; name: string }[];
}

export interface Page<T> {
  count?: number;
  next: string | null;
  previous?: string | null;
  results: T[];
}

export interface HogQLResult {
  results: unknown[][];
  columns: string[];
  types?: [string, string][] | string[];
  hogql?: string;
  is_cached?: boolean;
  last_refresh?: string;
  query_status?: QueryStatus | null;
}

export interface QueryStatus {
  id: string;
  complete: boolean;
  error: boolean;
  error_message: string | null;
  results?: HogQLResult | null;
  query_progress?: {
    rows_read: number;
    bytes_read: number;
    estimated_rows_total?: number;
    time_elapsed?: number;
  } | null;
}

/** A HogQL query, answered at once (blocking); for long work use runAsync. */
export function hogql(projectId: number, query: string, signal?: AbortSignal) {
  return api<HogQLResult>(
    'POST',
    `/api/environments/${projectId}/query/`,
    { query: { kind: 'HogQLQuery', query }, refresh: 'blocking' },
    { signal },
  );
}

export interface RunProgress {
  rowsRead: number;
  elapsedMs: number;
}

/**
 * Runs any query node in the background and polls its status, so long work shows progress and can
 * be cancelled (`signal`): the console never holds a request open for a slow query.
 */
export async function runQuery<T = HogQLResult>(
  projectId: number,
  query: object,
  options: { signal?: AbortSignal; onProgress?: (p: RunProgress) => void; refresh?: string } = {},
): Promise<T> {
  const base = `/api/environments/${projectId}/query`;
  const started = performance.now();
  const first = await api<T & { query_status?: QueryStatus | null }>(
    'POST',
    `${base}/`,
    { query, refresh: options.refresh ?? 'lazy_async' },
    { signal: options.signal },
  );
  // An answer that arrives after its run was superseded must not be shown: the caller's newer
  // run may already have finished, and this one would overwrite it.
  const fresh = <V>(value: V): V => {
    if (options.signal?.aborted) throw new DOMException('Cancelled', 'AbortError');
    return value;
  };
  let status = first.query_status;
  if (!status || status.complete) return fresh((status?.results as T | undefined) ?? first);
  const id = status.id;
  const cancel = () => void api('DELETE', `${base}/${id}/`).catch(() => undefined);
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (let wait = 100; ; wait = Math.min(wait * 1.5, 1000)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (options.signal?.aborted) throw new DOMException('Cancelled', 'AbortError');
      ({ query_status: status } = await get<{ query_status: QueryStatus }>(
        `${base}/${id}/?show_progress=true`,
        options.signal,
      ));
      fresh(null);
      if (status.error) throw new ApiFailure(400, { detail: status.error_message ?? 'The query failed.' });
      if (status.complete) return status.results as T;
      options.onProgress?.({
        rowsRead: status.query_progress?.rows_read ?? 0,
        elapsedMs: performance.now() - started,
      });
    }
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
}
