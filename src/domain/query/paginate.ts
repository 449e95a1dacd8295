import { constant, type SelectQuery } from '../../hogql/ast.js';
import { DEFAULT_RETURNED_ROWS, MAX_SELECT_RETURNED_ROWS } from '../../hogql/limits.js';

/**
 * PostHog's has-more paginator for the list kinds (EventsQuery, ActorsQuery, SessionsQuery): one
 * row more than the page is fetched, so the answer says whether another page exists without
 * counting. A missing, zero or negative limit means the default; larger ones are capped.
 */
export interface Page {
  limit: number;
  offset: number;
}

export function pageOf(limit: number | undefined, offset: number | undefined): Page {
  const wanted = limit === undefined || limit <= 0 ? DEFAULT_RETURNED_ROWS : limit;
  return {
    limit: Math.min(wanted, MAX_SELECT_RETURNED_ROWS),
    offset: offset !== undefined && offset > 0 ? offset : 0,
  };
}

/** Sets LIMIT page+1 and OFFSET on the query. */
export function paginate(query: SelectQuery, page: Page): SelectQuery {
  query.limit = constant(page.limit + 1);
  query.offset = constant(page.offset);
  return query;
}

/** The page's rows and the response's `hasMore`/`limit`/`offset`. */
export function trimPage<T>(rows: T[], page: Page) {
  return {
    rows: rows.slice(0, page.limit),
    params: { hasMore: rows.length > page.limit, limit: page.limit, offset: page.offset },
  };
}
