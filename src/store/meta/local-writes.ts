/**
 * How many times this process wrote destinations, actions and teams: a reader that keeps them
 * in memory (the destinations matcher) compares the count to know that its copy may be stale
 * without asking the database. Writes of other nodes are not counted: such readers also expire
 * their copy after a short time (docs/destinations.md).
 */
let writes = 0;

/** Called by the store's writes of `hog_functions`, `actions` and `teams`. */
export function countDestinationWrite(): void {
  writes++;
}

export const destinationWrites = () => writes;
