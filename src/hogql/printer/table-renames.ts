import type { AnySelect, Node } from '../ast.js';

type Walkable = Node & Record<string, unknown>;
const isNode = (v: unknown): v is Walkable => typeof v === 'object' && v !== null && 'node' in v;

/**
 * Table aliases that must print under another name. ClickHouse resolves `t.team_id` through an
 * expression alias `t` (or one named `t.team_id`) before the table `t`, so a query such as
 * `SELECT count() AS events FROM events` would point the team guard at the user's value. PostHog
 * users write exactly that, so instead of refusing it, the table prints as `events__t1`; the
 * output column names come from the HogQL aliases and do not change.
 */
export function tableRenames(root: AnySelect): Map<string, string> {
  const exprAliases = new Set<string>();
  const tableAliases = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (isNode(value)) {
      if (value.node === 'Alias' && typeof value.alias === 'string') exprAliases.add(value.alias);
      if (value.node === 'JoinExpr' && typeof value.alias === 'string') tableAliases.add(value.alias);
    }
    for (const [key, child] of Object.entries(value)) {
      // Types point back into the tree (and at generated subqueries, which are walked as nodes).
      if (key === 'type') continue;
      if (typeof child === 'object' && child !== null) visit(child);
    }
  };
  visit(root);

  const clashes = (name: string) => {
    for (const a of exprAliases) if (a === name || a.startsWith(`${name}.`)) return true;
    return false;
  };
  const taken = (name: string) => clashes(name) || tableAliases.has(name) || exprAliases.has(name);
  const renames = new Map<string, string>();
  let n = 0;
  for (const alias of tableAliases) {
    if (!clashes(alias)) continue;
    let fresh: string;
    do fresh = `${alias}__t${++n}`;
    while (taken(fresh));
    renames.set(alias, fresh);
  }
  return renames;
}
