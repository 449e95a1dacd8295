import type { OutgoingRequest } from './templates.js';

/**
 * Actions' `post_to_slack` (docs/destinations.md): an event matching such an action posts
 * `slack_message_format` to the project's `slack_incoming_webhook`, as PostHog's action webhooks
 * do. Its queue jobs are named `action:<id>` (the queue's `function_id`).
 */
export const ACTION_JOB_PREFIX = 'action:';
export const DEFAULT_SLACK_MESSAGE = '[action.name] was triggered by [person]';
/** PostHog's default person display properties (person_display_name_properties unset). */
const DISPLAY_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName'];

export interface ActionMessageInput {
  webhookUrl: string;
  format: string;
  action: { id: number; name: string | null };
  event: {
    uuid: string;
    event: string;
    distinctId: string;
    timestamp: string;
    properties: Record<string, unknown>;
    personProperties: Record<string, unknown>;
  };
  team: { id: number; personDisplayNameProperties: string[] | null };
  siteUrl: string;
}

/**
 * A token's value is cut to this many characters and the whole message to Slack's limit for a
 * message's text: a format of 1 200 characters naming a megabyte property fifty times must not
 * build (and queue, and send) fifty megabytes.
 */
export const MAX_TOKEN_CHARS = 3_000;
export const MAX_MESSAGE_CHARS = 40_000;

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** PostHog's `stringify` (strings as they are, `undefined` spelled out, the rest as JSON), clipped. */
const stringify = (v: unknown): string =>
  clip(
    typeof v === 'string' ? v : v === undefined ? 'undefined' : (JSON.stringify(v) ?? 'undefined'),
    MAX_TOKEN_CHARS,
  );

// https://api.slack.com/reference/surfaces/formatting#escaping
const escapeSlack = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Markdown for other services: special characters escaped, and line-start markers. */
function escapeMarkdown(s: string): string {
  let out = '';
  let lineStart = true;
  for (const c of s) {
    if (lineStart && '#-+'.includes(c)) out += `\\${c}`;
    else if (!lineStart && '\\`*_{}[]()!'.includes(c)) out += `\\${c}`;
    else out += c;
    lineStart = c === '\n' || c === '\r';
  }
  return out;
}

function byPath(v: unknown, path: string[]): unknown {
  let at = v;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

class UnknownToken extends Error {}

/** `[x]` tokens, `\[` and `\]` being literal brackets (PostHog's token syntax). */
const TOKEN = /(?<!\\)\[(.*?)(?<!\\)\]/g;

/**
 * The message as PostHog writes it: a plain text and a linked one (Slack's `<url|text>`, or
 * Markdown `[text](url)` elsewhere), with `[action.name]`, `[action.link]`, `[person]`,
 * `[person.link]`, `[person.properties.x]`, `[event]`, `[event.link]`, `[event.uuid]`,
 * `[event.event]`, `[event.name]`, `[event.timestamp]`, `[event.distinct_id]`,
 * `[event.properties.x]` and the older `[user.name]` / `[user.x]` (the event's `$x`). A token of
 * any other kind gives PostHog's error line instead of the message.
 */
export function actionMessage(input: ActionMessageInput): { text: string; markdown: string } {
  const slack = isSlack(input.webhookUrl);
  const escaped = (v: unknown) => (slack ? escapeSlack(stringify(v)) : escapeMarkdown(stringify(v)));
  const link = (name: unknown, url: string): [string, string] => {
    const n = stringify(name);
    return slack
      ? [escapeSlack(n), `<${escapeSlack(url)}|${escapeSlack(n)}>`]
      : [escapeMarkdown(n), `[${escapeMarkdown(n)}](${escapeMarkdown(url)})`];
  };
  const { event, team } = input;
  const project = `${input.siteUrl}/project/${team.id}`;
  const personLink = `${project}/person/${encodeURIComponent(event.distinctId)}`;
  const actionLink = `${project}/action/${input.action.id}`;
  const eventLink = `${project}/events/${encodeURIComponent(event.uuid)}/${encodeURIComponent(event.timestamp)}`;
  const person = (): [string, string] => {
    const keys = team.personDisplayNameProperties ?? DISPLAY_PROPERTIES;
    const key = keys.find((k) => event.personProperties[k]);
    const value = key ? event.personProperties[key] : undefined;
    const custom = typeof value === 'string' ? value : JSON.stringify(value);
    return link((custom || event.distinctId)?.trim(), personLink);
  };
  const same = (v: unknown): [string, string] => {
    const s = escaped(v);
    return [s, s];
  };
  const tokenValue = (parts: string[]): [string, string] => {
    const [root, field] = parts;
    if (root === 'user') return field === 'name' ? person() : same(event.properties[`$${field}`]);
    if (root === 'person') {
      if (parts.length === 1) return person();
      if (field === 'link') return same(personLink);
      if (field === 'properties' && parts.length > 2)
        return same(byPath(event.personProperties, parts.slice(2)));
      return ['', ''];
    }
    if (root === 'action') {
      if (field === 'name') return link(input.action.name, actionLink);
      if (field === 'link') return same(actionLink);
      return ['', ''];
    }
    if (root === 'event') {
      if (parts.length === 1) return link(event.event, eventLink);
      if (field === 'link') return same(eventLink);
      if (field === 'uuid') return same(event.uuid);
      if (field === 'name' || field === 'event') return same(event.event);
      if (field === 'timestamp') return same(event.timestamp);
      if (field === 'distinct_id') return same(event.distinctId);
      if (field === 'properties' && parts.length > 2) return same(byPath(event.properties, parts.slice(2)));
      return ['', ''];
    }
    throw new UnknownToken();
  };
  const format = input.format || DEFAULT_SLACK_MESSAGE;
  try {
    // Split on the tokens: text and token alternate (the capture group keeps the tokens).
    const pieces = format.split(TOKEN);
    let text = '';
    let markdown = '';
    pieces.forEach((piece, i) => {
      if (i % 2 === 0) {
        const literal = piece.replace(/\\(\[|\])/g, '$1');
        text += literal;
        markdown += literal;
      } else {
        const [t, m] = tokenValue(piece.split('.'));
        text += t;
        markdown += m;
      }
    });
    return { text: clip(text, MAX_MESSAGE_CHARS), markdown: clip(markdown, MAX_MESSAGE_CHARS) };
  } catch (error) {
    if (!(error instanceof UnknownToken)) throw error;
    const [name, linked] = link(input.action.name, actionLink);
    return {
      text: `⚠ Error: There are one or more formatting errors in the message template for action "${name}".`,
      markdown: `*⚠ Error: There are one or more formatting errors in the message template for action "${linked}".*`,
    };
  }
}

/** PostHog tells Slack from other services by the webhook's address. */
export const isSlack = (url: string) => url.toLowerCase().includes('slack.com');

/** The POST to the webhook: Slack gets the text and a Markdown block, others `{text}` in Markdown. */
export function actionWebhookRequest(input: ActionMessageInput): OutgoingRequest {
  const { text, markdown } = actionMessage(input);
  const body = isSlack(input.webhookUrl)
    ? { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: markdown } }] }
    : { text: markdown };
  return {
    url: input.webhookUrl,
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
}
