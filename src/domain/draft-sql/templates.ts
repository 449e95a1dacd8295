import type { Catalog } from './catalog.js';
import type { Draft } from './draft.js';
import { fieldFor } from './resolve.js';
import { breakdown, count, recent, type TemplateInput, timeSeries } from './shapes-events.js';
import { sessionDuration, topPages, usersWho } from './shapes-special.js';

export type { TemplateInput } from './shapes-events.js';

/** What a template made of a prompt: a draft, or why none fits. */
export type Outcome = { draft: Draft; template: string } | { problem: string };

const COUNT = /\b(?:how many|count|number of|total|amount of)\b/;
const USERS_WHO =
  /\b(?:users?|people|persons|customers|visitors|accounts)\s+(?:who|that|which)\b|\bwho\s+(?:did|have|has|never|performed|triggered)\b/;
const SESSION_DURATION = /\bsessions?\s+(?:duration|length|time)s?\b|\btime on site\b|\bhow long\b/;
const PAGES =
  /\b(?:top|most|popular|visited|viewed|busiest|best|common)\b.*\b(?:pages|urls|paths|screens)\b|\b(?:pages|urls|paths|screens)\b.*\b(?:most|visited|viewed|popular)\b/;
const TOP_EVENTS =
  /\b(?:top|most|common|frequent|popular|which|biggest|list of|all)\b.*\bevents\b|\bevents?\s+(?:counts?|volume)\b/;

/** Picks the template a prompt asks for, most specific first. */
export function fromTemplates(input: TemplateInput): Outcome {
  const outcome = pick(input);
  const { a, r } = input;
  // A draft does what was asked or says what it could not do: never a count in place of a sum.
  if ('draft' in outcome && r.aggregate && !AGGREGATING.has(outcome.template)) {
    return {
      problem: `Cannot draft "${a.aggregate?.fn}" of "${a.aggregate?.phrase}" in a ${outcome.template.replace(/_/g, ' ')} query without a model.`,
    };
  }
  return outcome;
}

/** Templates whose metric is the prompt's aggregate when there is one. */
const AGGREGATING = new Set(['count', 'breakdown', 'time_series', 'top_events']);

function pick(input: TemplateInput): Outcome {
  const { a, r, catalog } = input;
  if (a.unsupported) {
    return {
      problem: `Cannot draft "${a.unsupported}" without a model: drafts count events, users and sessions, or take the sum, average, median, percentile, min or max of a property.`,
    };
  }
  if (r.unknownProperties.length)
    return { problem: unknownProperty(r.unknownProperties[0] as string, catalog) };
  if (SESSION_DURATION.test(a.raw)) return { draft: sessionDuration(input), template: 'session_duration' };
  if (PAGES.test(a.raw)) return { draft: topPages(input), template: 'top_pages' };
  const named = r.events.length + r.excluded.length > 0;
  // Words that name no event matter when the query would count "something": never guess all events.
  const unknown =
    !named && r.unknownEvents.length ? unknownEvent(r.unknownEvents[0] as string, catalog) : undefined;
  const counting = (COUNT.test(a.raw) || r.aggregate !== undefined) && !a.granularity && !r.breakdown;
  if (USERS_WHO.test(a.raw) && !counting) {
    if (!named) return { problem: unknown ?? 'Which event should the users have done?' };
    return { draft: usersWho(input), template: 'users_who_did' };
  }
  const by =
    r.breakdown ??
    (TOP_EVENTS.test(a.raw) && !named && !a.granularity ? fieldFor('event', catalog) : undefined);
  if (by?.field === 'event' && !a.granularity) return { draft: breakdown(input, by), template: 'top_events' };
  if (unknown && !a.active) return { problem: unknown };
  if (a.granularity) return { draft: timeSeries(input), template: 'time_series' };
  if (by) return { draft: breakdown(input, by), template: 'breakdown' };
  if (a.recent && !counting) return { draft: recent(input), template: 'recent_events' };
  if (counting || named || a.metric !== 'count' || a.window || r.conditions.length) {
    return { draft: count(input), template: 'count' };
  }
  return { problem: '' };
}

function unknownEvent(phrase: string, catalog: Catalog): string {
  const names = catalog.events.slice(0, 8).map((e) => e.name);
  return names.length
    ? `No event like "${phrase}" in this project's last 30 days. Its most frequent events: ${names.join(', ')}.`
    : `No event like "${phrase}": this project has no events in the last 30 days.`;
}

function unknownProperty(phrase: string, catalog: Catalog): string {
  const keys = catalog.properties.slice(0, 8).map((p) => p.key);
  return `No property like "${phrase}" in this project's recent events.${keys.length ? ` Its most common properties: ${keys.join(', ')}.` : ''}`;
}
