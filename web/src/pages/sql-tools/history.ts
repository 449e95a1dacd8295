/**
 * Queries this person ran, kept in this browser (per user, per project), most recent first. A
 * query run again moves to the top instead of appearing twice.
 */
export interface Ran {
  query: string;
  at: string;
}

const LIMIT = 50;
const keyOf = (user: string, project: number) => `burrow.sql.history.${user}.${project}`;

export function readHistory(user: string, project: number): Ran[] {
  try {
    const list = JSON.parse(localStorage.getItem(keyOf(user, project)) ?? '[]') as unknown;
    return Array.isArray(list)
      ? list.filter((r): r is Ran => typeof r?.query === 'string' && typeof r?.at === 'string')
      : [];
  } catch {
    return [];
  }
}

export function remember(user: string, project: number, query: string): Ran[] {
  const list = [
    { query, at: new Date().toISOString() },
    ...readHistory(user, project).filter((r) => r.query !== query),
  ].slice(0, LIMIT);
  try {
    localStorage.setItem(keyOf(user, project), JSON.stringify(list));
  } catch {
    // A full or disabled storage loses the history, not the run.
  }
  return list;
}

export function forget(user: string, project: number): Ran[] {
  localStorage.removeItem(keyOf(user, project));
  return [];
}
