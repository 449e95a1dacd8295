/** Levenshtein distance, two rows at a time. Names are short, so this stays cheap. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `name` ignoring case, if similar enough: at most 40% of the longer
 * name may differ (close to difflib's 0.6 cutoff that PostHog's suggestions use). Ties go to the
 * candidate whose length is closest, then to the earlier one.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const longer = Math.max(wanted.length, candidate.length);
    // The length difference alone is a lower bound on the distance.
    if (Math.abs(candidate.length - wanted.length) > longer * 0.4) continue;
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance > longer * 0.4) continue;
    const score = distance * 1000 + Math.abs(candidate.length - wanted.length);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}
