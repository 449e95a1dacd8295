import { formatSqlResults } from './format.js';
import { readTaxonomy, type TaxonomyPort, type TaxonomyQuery } from './taxonomy.js';
import { readWarehouseSchema } from './warehouse-schema.js';

/**
 * The tools PostHog's MCP server invokes through `POST /api/environments/{id}/mcp_tools/{name}/`
 * with `{args}`. Arguments are checked as PostHog's pydantic models check them; a tool answers the
 * text a model reads.
 */

/** The arguments do not match the tool's schema (400). */
export class ToolArgsError extends Error {}
/** The tool ran and failed in a way the caller can fix by changing its input (200, success false). */
export class ToolError extends Error {}

export interface ToolContext {
  /** HogQL through the project's compiler, team guard and cache. */
  runHogQL(query: string): Promise<{ columns: string[]; results: unknown[][] }>;
  taxonomy: TaxonomyPort;
  actionEvents(actionId: number): Promise<{ events: string[] | null } | undefined>;
}

export interface McpTool {
  /** The scopes PostHog registers the tool with; a key needs all of them. */
  scopes: string[];
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<string>;
}

const MAX_SQL = 100_000;
const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const missing = (path: string) => new ToolArgsError(`${path}: Field required`);

function str(obj: Record<string, unknown>, key: string, path: string, max = 1000): string {
  const v = obj[key];
  if (v === undefined) throw missing(`${path}.${key}`);
  if (typeof v !== 'string') throw new ToolArgsError(`${path}.${key}: Input should be a valid string`);
  if (v.length > max) throw new ToolArgsError(`${path}.${key}: String should have at most ${max} characters`);
  return v;
}

function int(
  obj: Record<string, unknown>,
  key: string,
  path: string,
  min: number,
  max: number,
  dflt?: number,
) {
  const v = obj[key];
  if (v === undefined && dflt !== undefined) return dflt;
  if (v === undefined) throw missing(`${path}.${key}`);
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new ToolArgsError(`${path}.${key}: Input should be a valid integer`);
  if (v < min || v > max)
    throw new ToolArgsError(`${path}.${key}: Input should be between ${min} and ${max}`);
  return v;
}

function optionalBool(obj: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = obj[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw new ToolArgsError(`${key}: Input should be a valid boolean`);
  return v;
}

function taxonomyQuery(raw: unknown): TaxonomyQuery {
  if (!isObject(raw)) throw new ToolArgsError('query: Input should be a valid dictionary');
  const path = 'query';
  switch (raw.kind) {
    case 'events':
      return {
        kind: 'events',
        limit: int(raw, 'limit', path, 1, 500, 500),
        offset: int(raw, 'offset', path, 0, 1_000_000, 0),
      };
    case 'event_properties':
      return { kind: 'event_properties', event_name: str(raw, 'event_name', path) };
    case 'event_property_values':
      return {
        kind: 'event_property_values',
        event_name: str(raw, 'event_name', path),
        property_name: str(raw, 'property_name', path),
      };
    case 'entity_properties':
      return { kind: 'entity_properties', entity: str(raw, 'entity', path, 200) };
    case 'entity_property_values':
      return {
        kind: 'entity_property_values',
        entity: str(raw, 'entity', path, 200),
        property_name: str(raw, 'property_name', path),
      };
    case 'action_properties':
      return { kind: 'action_properties', action_id: int(raw, 'action_id', path, 1, 2_147_483_647) };
    case 'action_property_values':
      return {
        kind: 'action_property_values',
        action_id: int(raw, 'action_id', path, 1, 2_147_483_647),
        property_name: str(raw, 'property_name', path),
      };
    default:
      throw new ToolArgsError(
        "query: Input tag does not match any of the expected tags: 'events', 'event_properties', 'event_property_values', 'entity_properties', 'entity_property_values', 'action_properties', 'action_property_values'",
      );
  }
}

export const MCP_TOOLS: Record<string, McpTool> = {
  execute_sql: {
    scopes: ['query:read'],
    async run(args, ctx) {
      const query = str(args, 'query', 'args', MAX_SQL);
      const truncate = optionalBool(args, 'truncate', true);
      optionalBool(args, 'sendRawQuery', false);
      const connection = args.connectionId;
      if (connection !== undefined && connection !== null) {
        if (typeof connection !== 'string')
          throw new ToolArgsError('connectionId: Input should be a valid string');
        throw new ToolError(
          `No data warehouse connection "${connection.slice(0, 100)}": Burrow queries its own tables only`,
        );
      }
      if (!query.trim()) throw new ToolError('Query validation failed: the query is empty');
      const { columns, results } = await ctx.runHogQL(query);
      return formatSqlResults(columns, results, truncate);
    },
  },
  read_taxonomy: {
    scopes: ['action:read', 'property_definition:read', 'event_definition:read'],
    async run(args, ctx) {
      if (args.query === undefined) throw missing('query');
      return readTaxonomy(ctx.taxonomy, taxonomyQuery(args.query), (id) => ctx.actionEvents(id));
    },
  },
  read_data_warehouse_schema: {
    scopes: ['warehouse_table:read', 'warehouse_view:read'],
    async run(args) {
      const q = args.query;
      if (q === undefined) throw missing('query');
      if (!isObject(q)) throw new ToolArgsError('query: Input should be a valid dictionary');
      if (q.kind !== undefined && q.kind !== 'data_warehouse_schema')
        throw new ToolArgsError("query.kind: Input should be 'data_warehouse_schema'");
      const names = q.table_names;
      if (names !== undefined && names !== null) {
        if (
          !Array.isArray(names) ||
          names.length > 100 ||
          !names.every((n) => typeof n === 'string' && n.length <= 200)
        )
          throw new ToolArgsError('query.table_names: Input should be a list of at most 100 table names');
        return readWarehouseSchema(names as string[]);
      }
      return readWarehouseSchema(null);
    },
  },
};
