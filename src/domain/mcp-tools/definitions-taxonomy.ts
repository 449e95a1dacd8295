import type { MetaDb } from '../../store/meta/db.js';
import { listEventDefinitions, listPropertyDefinitions } from '../../store/meta/definitions.js';
import { PROPERTY_PARENT } from '../definitions/detect.js';
import type { TaxonomyPort } from './taxonomy.js';

const MAX_PROPERTIES = 500;

/**
 * `read_taxonomy` from the event and property definitions collected at ingestion: names with the
 * descriptions people wrote and the types the compiler uses. Where the definitions have nothing
 * yet (events that arrived before they existed) and for sample values, the events table answers.
 */
export function definitionsTaxonomy(db: MetaDb, teamId: number, fallback: TaxonomyPort): TaxonomyPort {
  return {
    async events(page) {
      const { results } = await listEventDefinitions(db, teamId, { excludeHidden: true }, page);
      if (results.length === 0 && page.offset === 0) return fallback.events(page);
      return results.map((d) => ({ name: d.name, count: null, description: d.description }));
    },
    async properties(target) {
      if ('entity' in target && target.entity === 'session') return fallback.properties(target);
      const type = 'entity' in target ? PROPERTY_PARENT.person : PROPERTY_PARENT.event;
      const onEvents = 'events' in target && target.events ? target.events : undefined;
      const { results } = await listPropertyDefinitions(
        db,
        teamId,
        { type, onEvents, excludeHidden: true },
        { limit: MAX_PROPERTIES, offset: 0 },
      );
      if (results.length === 0) return fallback.properties(target);
      return results.map((d) => ({ name: d.name, type: d.propertyType, description: d.description }));
    },
    propertyValues: (target, property) => fallback.propertyValues(target, property),
  };
}
