import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { Nullable } from '../api/schemas/common.js';

export const DEFAULT_PAGE_SIZE = 100;
/** Larger `limit` values are clamped, and the `next` link carries the clamped value. */
export const MAX_PAGE_SIZE = 1000;

export const PageQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Page size (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`,
    }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Index of the first result' })),
});

export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object({
    count: Type.Integer(),
    next: Nullable(Type.String()),
    previous: Nullable(Type.String()),
    results: Type.Array(item),
  });

export interface Page {
  limit: number;
  offset: number;
}

export function pageOf(query: { limit?: number; offset?: number }): Page {
  return { limit: Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE), offset: query.offset ?? 0 };
}

/** The request's own absolute URL, honouring X-Forwarded-Proto/Host only when TRUST_PROXY is on. */
function requestUrl(request: FastifyRequest): URL {
  return new URL(request.url, `${request.protocol}://${request.host}`);
}

/** Like DRF: every query parameter re-encoded, sorted by name. */
function withParams(url: URL, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(url.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name);
    else params.set(name, value);
  }
  params.sort();
  const search = params.toString();
  return `${url.origin}${url.pathname}${search ? `?${search}` : ''}`;
}

export function paginate<T>(request: FastifyRequest, page: Page, data: { count: number; results: T[] }) {
  const url = requestUrl(request);
  const { limit, offset } = page;
  const next =
    offset + limit < data.count
      ? withParams(url, { limit: String(limit), offset: String(offset + limit) })
      : null;
  let previous: string | null = null;
  if (offset > 0) {
    previous =
      offset - limit <= 0
        ? withParams(url, { limit: String(limit), offset: null })
        : withParams(url, { limit: String(limit), offset: String(offset - limit) });
  }
  return { count: data.count, next, previous, results: data.results };
}
