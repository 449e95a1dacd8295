import { randomUUID } from 'node:crypto';
import type { MetaDb } from '../../store/meta/db.js';
import {
  createIssueForFingerprint,
  type IssueAssignee,
  issueOfFingerprint,
  reopenIssue,
} from '../../store/meta/error-tracking.js';
import { countSuppressed } from '../../store/meta/error-tracking-rules.js';
import type { CaptureEvent } from '../ingest/rows.js';
import {
  MalformedExceptionList,
  type ParsedException,
  parseExceptionList,
  serializeExceptionList,
} from './exception-list.js';
import { fingerprintOf } from './fingerprint.js';
import { issueCacheFor } from './issue-cache.js';
import { matchesGroup, type PropertyGroup, ruleFingerprint, rulesCacheFor } from './rules.js';

/** Symbolication of a project's frames in place (symbolicate.ts); absent, frames stay as sent. */
export type Symbolicate = (teamId: number, list: ParsedException[]) => Promise<void>;

export interface ExceptionStepDeps {
  meta: MetaDb;
  now: () => Date;
  symbolicate?: Symbolicate | undefined;
}

/** Processes a request's `$exception` events; answers the uuids to drop (suppressed issues). */
export type ExceptionStep = (teamId: number, events: CaptureEvent[]) => Promise<Set<string>>;

const MAX_CLIENT_FINGERPRINT = 1_000;

const unique = (values: (string | null | undefined)[]): string[] => [
  ...new Set(values.filter((v): v is string => typeof v === 'string' && v !== '')),
];

/**
 * Error tracking at capture: each `$exception` gets its frames resolved, a fingerprint (the
 * client's `$exception_fingerprint` wins over the computed one, kept as
 * `$exception_proposed_fingerprint`), the issue of that fingerprint (created on first sight,
 * reopened when it was resolved) and PostHog's searchable `$exception_*` lists. An exception list
 * that is not one is stored as sent with `$cymbal_errors` saying why, and no issue.
 */
export function createExceptionStep(deps: ExceptionStepDeps): ExceptionStep {
  const cache = issueCacheFor(deps.meta);
  const rules = rulesCacheFor(deps.meta);

  async function issueFor(
    teamId: number,
    fingerprint: string,
    first: ParsedException,
    assignee: IssueAssignee | null = null,
  ) {
    const now = deps.now();
    const hit = cache.get(teamId, fingerprint, now.getTime());
    if (hit && hit.status !== 'resolved' && hit.status !== 'pending_release') return hit;
    let found = hit ?? (await issueOfFingerprint(deps.meta, teamId, fingerprint));
    if (!found) {
      found = await createIssueForFingerprint(
        deps.meta,
        {
          id: randomUUID(),
          teamId,
          name: first.type,
          description: first.value,
          now: now.toISOString(),
          assignee,
        },
        fingerprint,
      );
    } else if (found.status === 'resolved' || found.status === 'pending_release') {
      // It recurred: PostHog reopens a resolved issue.
      await reopenIssue(deps.meta, teamId, found.id, now.toISOString());
      found = { id: found.id, status: 'active' };
    }
    cache.set(teamId, fingerprint, found.id, found.status, now.getTime());
    return found;
  }

  return async (teamId, events) => {
    const drop = new Set<string>();
    const now = deps.now();
    const { grouping, suppression } = await rules.of(teamId, now.getTime());
    const suppressed = new Map<string, number>();
    for (const e of events) {
      const p = e.properties;
      let list: ParsedException[];
      try {
        list = parseExceptionList(p.$exception_list);
      } catch (error) {
        if (!(error instanceof MalformedExceptionList)) throw error;
        p.$cymbal_errors = [error.message];
        continue;
      }
      if (deps.symbolicate) await deps.symbolicate(teamId, list);
      const first = list[0] as ParsedException;
      const frames = list.flatMap((x) => x.frames ?? []);
      // Rules see the searchable lists, as PostHog's cymbal evaluates them after resolving frames.
      p.$exception_types = unique(list.map((x) => x.type));
      p.$exception_values = unique(list.map((x) => x.value));
      p.$exception_sources = unique(frames.map((f) => f.source));
      p.$exception_functions = unique(frames.map((f) => f.resolved_name ?? f.mangled_name));
      p.$exception_handled = first.mechanism.handled !== false;
      const suppressor = suppression.find((r) => matchesGroup(r.filters as PropertyGroup, p, now));
      if (suppressor) {
        drop.add(e.uuid);
        suppressed.set(suppressor.id, (suppressed.get(suppressor.id) ?? 0) + 1);
        continue;
      }
      const proposed = fingerprintOf(list);
      const client = p.$exception_fingerprint;
      const rule = grouping.find((r) => matchesGroup(r.filters as PropertyGroup, p, now));
      // A custom grouping rule wins over the client's fingerprint, which wins over the computed one.
      const fingerprint = rule
        ? ruleFingerprint(rule.id)
        : typeof client === 'string' && client !== ''
          ? client.slice(0, MAX_CLIENT_FINGERPRINT)
          : Array.isArray(client) && client.length > 0
            ? JSON.stringify(client).slice(0, MAX_CLIENT_FINGERPRINT)
            : proposed;
      const issue = await issueFor(teamId, fingerprint, first, rule?.assignee ?? null);
      if (issue.status === 'suppressed') {
        drop.add(e.uuid);
        continue;
      }
      p.$exception_list = serializeExceptionList(list);
      p.$exception_fingerprint = fingerprint;
      p.$exception_proposed_fingerprint = proposed;
      p.$exception_issue_id = issue.id;
      if (rule) p.$exception_grouping_rule_id = rule.id;
    }
    for (const [id, n] of suppressed) await countSuppressed(deps.meta, teamId, id, n);
    return drop;
  };
}
