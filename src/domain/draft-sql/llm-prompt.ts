import type { Catalog } from './catalog.js';
import type { ChatMessage } from './llm.js';

/** What the model is told: HogQL's shape, the project's own names, and how to answer. */
const HOGQL = `You write HogQL, PostHog's SQL dialect (ClickHouse SQL over a virtual schema).
Tables:
- events: uuid, event (name), timestamp (DateTime, project timezone), distinct_id, person_id,
  $session_id, properties (event properties: properties.$browser, properties.plan),
  person.properties.<key> (the person's current properties), session.<session field>.
- persons: id, created_at, properties.<key>.
- sessions: session_id, distinct_id, $start_timestamp, $end_timestamp, $session_duration
  (seconds), $pageview_count, $event_count, $entry_current_url, $entry_pathname, $is_bounce.
Rules:
- One SELECT statement (WITH/UNION allowed); no semicolon, no DDL, no INSERT.
- Never filter on team or project: the engine scopes every table to the project.
- Property values are strings; compare with strings, or convert (toFloat) for numbers.
- Use ClickHouse functions (count(), uniq(), countIf(), toStartOfDay(), dateDiff(), now(),
  today(), yesterday(), INTERVAL 7 DAY); count users with count(DISTINCT person_id).
- Add a time filter (default: the last 30 days) and a LIMIT on lists.
- Prefer the project's real event names and property keys listed below.
Answer with the query alone in a \`\`\`sql block. If the request is not about this data or cannot
be answered with a query, answer exactly "UNCLEAR: " followed by one sentence saying why.`;

const list = (items: string[]) =>
  items.length ? items.map((s) => JSON.stringify(s)).join(', ') : '(none yet)';

export function chatMessages(catalog: Catalog, prompt: string, currentQuery?: string): ChatMessage[] {
  const events = list(catalog.events.slice(0, 60).map((e) => e.name));
  const props = (kind: 'event' | 'person', n: number) =>
    list(
      catalog.properties
        .filter((p) => p.kind === kind)
        .slice(0, n)
        .map((p) => p.key),
    );
  const system = [
    HOGQL,
    '',
    `This project's events (last 30 days, most frequent first): ${events}`,
    `Event property keys: ${props('event', 120)}`,
    `Person property keys: ${props('person', 60)}`,
  ].join('\n');
  const user = currentQuery?.trim()
    ? `Current query:\n\`\`\`sql\n${currentQuery}\n\`\`\`\nChange it or write a new one as this asks: ${prompt}`
    : prompt;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}
