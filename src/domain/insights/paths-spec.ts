import { ApiError } from '../../errors.js';
import type { AnyProperties } from '../../hogql/property-filters.js';
import type { QueryNode } from '../query/kinds.js';
import { optionalObject, optionalProperties } from '../query/node-checks.js';
import { checkRegex } from '../regex/check.js';

export type PathEventType = '$pageview' | '$screen' | 'custom_event' | 'hogql';

/** A PathsQuery after validation, with PostHog's defaults. */
export interface PathsSpec {
  types: PathEventType[];
  hogql: string | null;
  startPoint: string | null;
  endPoint: string | null;
  stepLimit: number;
  edgeLimit: number;
  minEdgeWeight: number | null;
  maxEdgeWeight: number | null;
  excludeEvents: string[];
  cleaning: Array<{ alias: string; regex: string }>;
  properties: AnyProperties;
}

const TYPES = ['$pageview', '$screen', 'custom_event', 'hogql'];
const bad = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

function int(value: unknown, attr: string, min: number, max: number, fallback: number | null): number | null {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    throw bad(attr, `${attr} must be an integer between ${min} and ${max}`);
  return value as number;
}

function text(value: unknown, attr: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw bad(attr, `${attr} must be a string`);
  return value;
}

export function pathsSpec(node: QueryNode): PathsSpec {
  const f = optionalObject(node, 'pathsFilter') ?? {};
  optionalProperties(node, 'properties');
  if (node.funnelPathsFilter !== undefined && node.funnelPathsFilter !== null)
    throw bad('funnelPathsFilter', 'Paths from funnels are not supported yet.');
  const types = (f.includeEventTypes as unknown[] | undefined) ?? [];
  if (!Array.isArray(types) || types.some((t) => typeof t !== 'string' || !TYPES.includes(t)))
    throw bad('includeEventTypes', `includeEventTypes must list: ${TYPES.join(', ')}`);
  const hogql = text(f.pathsHogQLExpression, 'pathsHogQLExpression');
  if (types.includes('hogql') && !hogql)
    throw bad('pathsHogQLExpression', 'pathsHogQLExpression is required with the hogql event type');
  const exclude = (f.excludeEvents as unknown[] | undefined) ?? [];
  if (!Array.isArray(exclude) || exclude.some((e) => typeof e !== 'string'))
    throw bad('excludeEvents', 'excludeEvents must be a list of strings');
  const cleaning = (f.localPathCleaningFilters as unknown[] | undefined) ?? [];
  if (
    !Array.isArray(cleaning) ||
    cleaning.some(
      (c) =>
        typeof (c as { regex?: unknown })?.regex !== 'string' ||
        typeof (c as { alias?: unknown }).alias !== 'string',
    )
  )
    throw bad('localPathCleaningFilters', 'localPathCleaningFilters must be a list of {alias, regex}');
  // ClickHouse's replaceRegexpAll runs them: RE2 syntax, refused here rather than by the engine.
  for (const c of cleaning as Array<{ regex: string }>) checkRegex(c.regex, 'localPathCleaningFilters');
  return {
    types: types as PathEventType[],
    hogql,
    startPoint: text(f.startPoint, 'startPoint'),
    endPoint: text(f.endPoint, 'endPoint'),
    stepLimit: int(f.stepLimit, 'stepLimit', 2, 20, 5) as number,
    edgeLimit: int(f.edgeLimit, 'edgeLimit', 1, 10_000, 50) as number,
    minEdgeWeight: int(f.minEdgeWeight, 'minEdgeWeight', 0, Number.MAX_SAFE_INTEGER, null),
    maxEdgeWeight: int(f.maxEdgeWeight, 'maxEdgeWeight', 0, Number.MAX_SAFE_INTEGER, null),
    excludeEvents: exclude as string[],
    cleaning: cleaning as PathsSpec['cleaning'],
    properties: node.properties as AnyProperties,
  };
}
