/** `$set`, `$set_once` and `$unset` as PostHog applies them; returns whether anything changed. */
export function applyPersonUpdates(
  target: Record<string, unknown>,
  properties: Record<string, unknown>,
): boolean {
  let changed = false;
  const set = properties.$set;
  if (set && typeof set === 'object' && !Array.isArray(set)) {
    for (const [k, v] of Object.entries(set)) {
      if (target[k] !== v) {
        target[k] = v;
        changed = true;
      }
    }
  }
  const setOnce = properties.$set_once;
  if (setOnce && typeof setOnce === 'object' && !Array.isArray(setOnce)) {
    for (const [k, v] of Object.entries(setOnce)) {
      if (!(k in target)) {
        target[k] = v;
        changed = true;
      }
    }
  }
  const unset = properties.$unset;
  const keys = Array.isArray(unset) ? unset : unset && typeof unset === 'object' ? Object.keys(unset) : [];
  for (const k of keys) {
    if (typeof k === 'string' && k in target) {
      delete target[k];
      changed = true;
    }
  }
  return changed;
}

/** Merged properties when `other` is folded into `primary`: the primary person's values win. */
export function mergeProperties(
  primary: Record<string, unknown>,
  other: Record<string, unknown>,
): Record<string, unknown> {
  return { ...other, ...primary };
}

/** Whether `applyPersonUpdates(target, properties)` would change anything; changes nothing itself. */
export function wouldUpdatePerson(
  target: Record<string, unknown>,
  properties: Record<string, unknown>,
): boolean {
  const set = properties.$set;
  if (set && typeof set === 'object' && !Array.isArray(set)) {
    for (const k in set) if (target[k] !== (set as Record<string, unknown>)[k]) return true;
  }
  const setOnce = properties.$set_once;
  if (setOnce && typeof setOnce === 'object' && !Array.isArray(setOnce)) {
    for (const k in setOnce) if (!(k in target)) return true;
  }
  const unset = properties.$unset;
  const keys = Array.isArray(unset) ? unset : unset && typeof unset === 'object' ? Object.keys(unset) : [];
  for (const k of keys) if (typeof k === 'string' && k in target) return true;
  return false;
}
