/**
 * A store whose migration ledger names migrations this code does not know was written by a newer
 * Burrow. Starting on it could read columns wrongly or write rows the newer code cannot read, so
 * startup stops before touching anything and says what to do.
 */
export class NewerDataError extends Error {
  constructor(
    readonly store: 'metadata' | 'events',
    readonly unknown: readonly string[],
  ) {
    super(
      `The ${store} store was written by a newer version of Burrow: it has ${unknown.length === 1 ? 'migration' : 'migrations'} ` +
        `${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', …' : ''} that this version does not know. ` +
        'Nothing was changed. Run the newer version again, or restore a backup made before the upgrade ' +
        '(docs/operations.md, "Upgrades").',
    );
    this.name = 'NewerDataError';
  }
}

/** Ledger entries that the code's list of migrations does not contain, in ledger order. */
export function unknownMigrations(ledger: readonly string[], known: Iterable<string>): string[] {
  const names = new Set(known);
  return ledger.filter((name) => !names.has(name));
}
