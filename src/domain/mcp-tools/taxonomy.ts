/**
 * `read_taxonomy`: the project's events, their properties and sample values, for a model to write
 * queries with. What it reads comes through `TaxonomyPort`, so event/property definitions can
 * replace the default (which reads the events table itself) without touching the tool.
 */

export interface TaxonomyEvent {
  name: string;
  /** Events in the last 30 days, when known. */
  count: number | null;
  description: string | null;
}

export interface TaxonomyProperty {
  name: string;
  /** PostHog's property types: String, Numeric, Boolean, DateTime; null when unknown. */
  type: string | null;
  description: string | null;
}

/** Where a property lives: on some events (all when `events` is null), on persons, on sessions. */
export type PropertyTarget = { events: string[] | null } | { entity: 'person' | 'session' };

export interface TaxonomyPort {
  events(page: { limit: number; offset: number }): Promise<TaxonomyEvent[]>;
  properties(target: PropertyTarget): Promise<TaxonomyProperty[]>;
  /** At most 25 distinct sample values, most frequent first. */
  propertyValues(target: PropertyTarget, property: string): Promise<string[]>;
}

/** A HogQL runner bound to the project (team guard, cache): rows of the result. */
export type RunHogQL = (query: string, values: Record<string, unknown>) => Promise<unknown[][]>;

const RECENT = 'timestamp > now() - INTERVAL 30 DAY';
const MAX_PROPERTIES = 500;
const MAX_VALUES = 25;

function eventCondition(events: string[] | null): { sql: string; values: Record<string, unknown> } {
  if (events === null) return { sql: RECENT, values: {} };
  return { sql: `${RECENT} AND event IN {events}`, values: { events } };
}

const typeOfJson = (t: unknown): string | null => {
  switch (t) {
    case 'String':
      return 'String';
    case 'Int64':
    case 'UInt64':
    case 'Double':
      return 'Numeric';
    case 'Bool':
      return 'Boolean';
    default:
      return null;
  }
};

/** The default port: reads the last 30 days of the events and persons tables through HogQL. */
export function eventsTableTaxonomy(run: RunHogQL, sessionFields: () => string[]): TaxonomyPort {
  return {
    async events({ limit, offset }) {
      const rows = await run(
        `SELECT event, count() AS c FROM events WHERE ${RECENT} GROUP BY event ORDER BY c DESC, event LIMIT ${limit} OFFSET ${offset}`,
        {},
      );
      return rows.map(([name, count]) => ({ name: String(name), count: Number(count), description: null }));
    },
    async properties(target) {
      if ('entity' in target && target.entity === 'session')
        return sessionFields().map((name) => ({ name, type: null, description: null }));
      const source =
        'entity' in target
          ? { sql: 'SELECT properties FROM persons', values: {} }
          : (() => {
              const c = eventCondition(target.events);
              return { sql: `SELECT properties FROM events WHERE ${c.sql}`, values: c.values };
            })();
      const rows = await run(
        `SELECT key, any(JSONType(properties, key)) AS t, count() AS c FROM (${source.sql} LIMIT 10000) ARRAY JOIN JSONExtractKeys(properties) AS key GROUP BY key ORDER BY c DESC, key LIMIT ${MAX_PROPERTIES}`,
        source.values,
      );
      return rows.map(([name, t]) => ({ name: String(name), type: typeOfJson(t), description: null }));
    },
    async propertyValues(target, property) {
      if ('entity' in target && target.entity === 'session') {
        if (!sessionFields().includes(property)) return [];
        const rows = await run(
          `SELECT toString(${property}) AS v, count() AS c FROM sessions WHERE $start_timestamp > now() - INTERVAL 30 DAY GROUP BY v ORDER BY c DESC LIMIT ${MAX_VALUES}`,
          {},
        );
        return rows.map(([v]) => String(v));
      }
      const from =
        'entity' in target
          ? { sql: 'persons WHERE 1', values: {} }
          : (() => {
              const c = eventCondition(target.events);
              return { sql: `events WHERE ${c.sql}`, values: c.values };
            })();
      const rows = await run(
        `SELECT JSONExtractString(properties, {key}) AS v, count() AS c FROM ${from.sql} AND JSONHas(properties, {key}) GROUP BY v ORDER BY c DESC, v LIMIT ${MAX_VALUES}`,
        { ...from.values, key: property },
      );
      return rows.map(([v]) => String(v));
    },
  };
}

/** PostHog's read_taxonomy query kinds (its ReadTaxonomyQuery union). */
export type TaxonomyQuery =
  | { kind: 'events'; limit: number; offset: number }
  | { kind: 'event_properties'; event_name: string }
  | { kind: 'event_property_values'; event_name: string; property_name: string }
  | { kind: 'entity_properties'; entity: string }
  | { kind: 'entity_property_values'; entity: string; property_name: string }
  | { kind: 'action_properties'; action_id: number }
  | { kind: 'action_property_values'; action_id: number; property_name: string };

/** The tool fails with a message a model can act on. */
export class TaxonomyError extends Error {}

function entityOf(raw: string): 'person' | 'session' {
  const e = raw.trim().toLowerCase().replace(/s$/, '');
  if (e === 'person' || e === 'session') return e;
  throw new TaxonomyError(`Entity "${raw}" does not exist. Available entities: person, session.`);
}

function propertiesText(title: string, props: TaxonomyProperty[]): string {
  if (!props.length) return `${title}: no properties found in the last 30 days.`;
  const byType = new Map<string, TaxonomyProperty[]>();
  for (const p of props) {
    const t = p.type ?? 'Unknown';
    byType.set(t, [...(byType.get(t) ?? []), p]);
  }
  const lines = ['properties:'];
  for (const [type, list] of byType) {
    lines.push(`  ${type}:`);
    for (const p of list) {
      lines.push(`    - name: ${JSON.stringify(p.name)}`);
      if (p.description) lines.push(`      description: ${JSON.stringify(p.description)}`);
    }
  }
  return lines.join('\n');
}

const valuesText = (property: string, values: string[]) =>
  values.length
    ? [
        `values of ${JSON.stringify(property)} (at most ${MAX_VALUES}):`,
        ...values.map((v) => `- ${JSON.stringify(v)}`),
      ].join('\n')
    : `The property ${JSON.stringify(property)} has no values in the last 30 days.`;

export async function readTaxonomy(
  port: TaxonomyPort,
  query: TaxonomyQuery,
  /** The events an action matches (null: any event), or undefined when there is no such action. */
  actionEvents: (actionId: number) => Promise<{ events: string[] | null } | undefined>,
): Promise<string> {
  switch (query.kind) {
    case 'events': {
      const events = await port.events({ limit: query.limit, offset: query.offset });
      if (!events.length) return 'No events found in the last 30 days.';
      return [
        'events:',
        ...events.map(
          (e) =>
            `  - name: ${JSON.stringify(e.name)}${e.count !== null ? `\n    count_30d: ${e.count}` : ''}${e.description ? `\n    description: ${JSON.stringify(e.description)}` : ''}`,
        ),
      ].join('\n');
    }
    case 'event_properties':
      return propertiesText(
        `Event ${JSON.stringify(query.event_name)}`,
        await port.properties({ events: [query.event_name] }),
      );
    case 'event_property_values':
      return valuesText(
        query.property_name,
        await port.propertyValues({ events: [query.event_name] }, query.property_name),
      );
    case 'entity_properties': {
      const entity = entityOf(query.entity);
      return propertiesText(`Entity ${entity}`, await port.properties({ entity }));
    }
    case 'entity_property_values':
      return valuesText(
        query.property_name,
        await port.propertyValues({ entity: entityOf(query.entity) }, query.property_name),
      );
    case 'action_properties':
    case 'action_property_values': {
      const action = await actionEvents(query.action_id);
      if (action === undefined) throw new TaxonomyError(`Action ${query.action_id} does not exist.`);
      const events = action.events;
      return query.kind === 'action_properties'
        ? propertiesText(`Action ${query.action_id}`, await port.properties({ events }))
        : valuesText(query.property_name, await port.propertyValues({ events }, query.property_name));
    }
  }
}
