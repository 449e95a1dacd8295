import { ApiError } from '../../errors.js';
import type { QueryNode } from './kinds.js';

/**
 * Shape checks for structured query nodes, answered like PostHog's pydantic validation of the
 * request (400 `parse_error`, "1 validation error for QueryRequest ..."), before anything is
 * cached or queued. HogQL inside the strings is checked when the query compiles.
 */
const MAX_EXPRESSIONS = 200;
const MAX_EXPRESSION_LENGTH = 10_000;

function invalid(node: QueryNode, key: string, message: string): ApiError {
  return new ApiError(
    400,
    'validation_error',
    'parse_error',
    `1 validation error for QueryRequest\nquery.${node.kind}.${key}: ${message}`,
    // Relative to the node; the endpoint puts the node's own path in front (`query__select__1`).
    key.replace(/\./g, '__'),
  );
}

const present = (v: unknown) => v !== undefined && v !== null;

/** A list of HogQL expressions (`select`, `where`, `orderBy`). */
export function stringList(node: QueryNode, key: string, required = false): string[] | undefined {
  const v = node[key];
  if (!present(v)) {
    if (required) throw invalid(node, key, 'Field required');
    return undefined;
  }
  if (!Array.isArray(v)) throw invalid(node, key, 'Input should be a valid list');
  if (v.length > MAX_EXPRESSIONS)
    throw invalid(node, key, `List should have at most ${MAX_EXPRESSIONS} items`);
  v.forEach((item, i) => {
    if (typeof item !== 'string') throw invalid(node, `${key}.${i}`, 'Input should be a valid string');
    if (item.length > MAX_EXPRESSION_LENGTH)
      throw invalid(node, `${key}.${i}`, `String should have at most ${MAX_EXPRESSION_LENGTH} characters`);
  });
  return v as string[];
}

export function optionalString(node: QueryNode, key: string): string | undefined {
  const v = node[key];
  if (!present(v)) return undefined;
  if (typeof v !== 'string') throw invalid(node, key, 'Input should be a valid string');
  if (v.length > MAX_EXPRESSION_LENGTH)
    throw invalid(node, key, `String should have at most ${MAX_EXPRESSION_LENGTH} characters`);
  return v;
}

export function optionalInteger(node: QueryNode, key: string): number | undefined {
  const v = node[key];
  if (!present(v)) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw invalid(node, key, 'Input should be a valid integer');
  return v;
}

export function optionalBoolean(node: QueryNode, key: string): boolean | undefined {
  const v = node[key];
  if (!present(v)) return undefined;
  if (typeof v !== 'boolean') throw invalid(node, key, 'Input should be a valid boolean');
  return v;
}

/** Property filters: a list of filters, or an AND/OR group. Their contents are checked when compiled. */
export function optionalProperties(node: QueryNode, key: string): void {
  const v = node[key];
  if (!present(v)) return;
  if (Array.isArray(v)) {
    v.forEach((item, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw invalid(node, `${key}.${i}`, 'Input should be an object');
    });
    return;
  }
  if (typeof v !== 'object') throw invalid(node, key, 'Input should be a valid list');
}

export function optionalObject(node: QueryNode, key: string): Record<string, unknown> | undefined {
  const v = node[key];
  if (!present(v)) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(node, key, 'Input should be an object');
  return v as Record<string, unknown>;
}
