import { runQuery } from '../../api';
import type { Filters } from './types';

/** The globals an invocation runs on (PostHog's `event` and `person`), and where they came from. */
export interface Sample {
  globals: { event: Record<string, unknown>; person: Record<string, unknown> | null };
  /** False when no event matched: the preview runs on an example instead. */
  real: boolean;
}

/** A HogQL string literal: backslashes and quotes escaped. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export const eventNames = (filters: Filters) =>
  (filters.events ?? []).map((e) => String(e.id ?? e.name ?? '')).filter(Boolean);

/**
 * The project's most recent event (last 30 days) of the filters' event names and property filters,
 * read through the public query API (EventsQuery, `*` and `person` as PostHog shapes them).
 * Actions in the filters are not applied here: the preview only needs one plausible event.
 */
export async function latestMatchingEvent(projectId: number, filters: Filters, signal: AbortSignal) {
  const names = eventNames(filters);
  const answer = await runQuery<{ results: unknown[][] }>(
    projectId,
    {
      kind: 'EventsQuery',
      select: ['*', 'person'],
      where: names.length ? [`event IN (${names.map(literal).join(', ')})`] : [],
      ...(Array.isArray(filters.properties) && filters.properties.length
        ? { properties: filters.properties }
        : {}),
      filterTestAccounts: filters.filter_test_accounts === true,
      orderBy: ['timestamp DESC'],
      after: '-30d',
      limit: 1,
    },
    { signal, refresh: 'force_blocking' },
  );
  const row = answer.results[0];
  if (!row) return null;
  const event = row[0] as Record<string, unknown>;
  const person = (row[1] ?? {}) as { uuid?: string; properties?: Record<string, unknown> };
  const props = person.properties ?? {};
  return {
    event: {
      uuid: event.uuid,
      event: event.event,
      distinct_id: event.distinct_id,
      properties: event.properties ?? {},
      timestamp: event.timestamp,
      elements_chain: event.elements_chain ?? '',
    },
    person: person.uuid
      ? {
          id: person.uuid,
          properties: props,
          // PostHog's display name: email or name when set, else the distinct id.
          name: String(props.email ?? props.name ?? event.distinct_id ?? ''),
        }
      : null,
  };
}

/** What the preview runs on when the project has no matching event yet. */
export function exampleGlobals(filters: Filters): Sample['globals'] {
  return {
    event: {
      uuid: '00000000-0000-4000-8000-000000000000',
      event: eventNames(filters)[0] ?? '$pageview',
      distinct_id: 'example-user',
      properties: { $current_url: 'https://example.com/', $browser: 'Chrome' },
      timestamp: new Date().toISOString(),
      elements_chain: '',
    },
    person: {
      id: '00000000-0000-4000-8000-000000000001',
      properties: { email: 'example@example.com' },
      name: 'example@example.com',
    },
  };
}
