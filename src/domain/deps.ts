import type { EventsStore } from '../store/events/store.js';
import type { MetaDb } from '../store/meta/db.js';

/** What domain functions are given; passed explicitly, never imported as singletons. */
export interface Deps {
  meta: MetaDb;
  events: EventsStore;
  now: () => Date;
}

/** For rules that only touch metadata (the CLI opens no analytics engine). */
export type MetaDeps = Pick<Deps, 'meta' | 'now'>;
