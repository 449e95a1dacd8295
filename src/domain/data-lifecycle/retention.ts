/**
 * Per-project retention: how long a project's events and recordings are kept. Two parts enforce
 * it: queries never read rows older than the cut (the printer adds it next to the team guard,
 * so the answer is right from the day the setting is saved), and a periodic job deletes those rows
 * from every table, which frees the disk once the engine has rewritten the parts.
 */

/** `events_retention_days` bounds; more than 100 years is a typo, not a policy. */
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 36_500;

/** PostHog's `session_recording_retention_period` choices, in days. */
export const RECORDING_RETENTION_DAYS: Record<string, number> = {
  '30d': 30,
  '90d': 90,
  '1y': 365,
  '5y': 1825,
};

const DAY_MS = 86_400_000;

export interface RetentionCut {
  /** Events (and the sessions and logs made from them) before this instant are gone. */
  events?: Date | undefined;
  recordings?: Date | undefined;
}

/**
 * The cut for a project's settings at `now`, at the start of a UTC day: a day-long constant, so
 * compiled queries and cache keys do not change from one millisecond to the next.
 */
export function retentionCut(settings: Record<string, unknown> | null | undefined, now: Date): RetentionCut {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const cut: RetentionCut = {};
  const days = settings?.events_retention_days;
  if (typeof days === 'number' && Number.isInteger(days) && days >= MIN_RETENTION_DAYS)
    cut.events = new Date(today - Math.min(days, MAX_RETENTION_DAYS) * DAY_MS);
  const period = settings?.session_recording_retention_period;
  const recordingDays = typeof period === 'string' ? RECORDING_RETENTION_DAYS[period] : undefined;
  if (recordingDays !== undefined) cut.recordings = new Date(today - recordingDays * DAY_MS);
  return cut;
}

/** `2026-11-01 00:00:00`: the engine's DateTime text, as the printer and the job pass it. */
export function engineTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}

/** The printer's `eventsSince` for a project's settings at `now`; undefined: everything is kept. */
export function eventsSinceFor(
  settings: Record<string, unknown> | null | undefined,
  now: Date,
): string | undefined {
  const cut = retentionCut(settings, now).events;
  return cut ? engineTime(cut) : undefined;
}
