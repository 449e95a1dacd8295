/**
 * The destination templates Burrow ships (ids and input keys follow PostHog's where PostHog has
 * the same template). A template's logic is TypeScript here, not Hog: `request` turns the rendered
 * inputs into the one HTTP request the destination sends.
 */
export interface InputSchema {
  key: string;
  type: 'string' | 'json' | 'dictionary' | 'boolean' | 'choice';
  label: string;
  required?: boolean;
  secret?: boolean;
  default?: unknown;
  description?: string;
  choices?: Array<{ label: string; value: string }>;
  templating?: boolean;
}

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface Template {
  id: string;
  name: string;
  description: string;
  icon_url: string;
  category: string[];
  inputs_schema: InputSchema[];
  /** What the template's code is, for clients that show it; custom code is not run. */
  hog: string;
  request(inputs: Record<string, unknown>): OutgoingRequest;
}

const str = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);

function headersOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v))
    for (const [k, val] of Object.entries(v)) if (val !== undefined && val !== null) out[k] = str(val);
  return out;
}

const jsonPost = (url: unknown, body: unknown, headers: Record<string, string> = {}): OutgoingRequest => ({
  url: str(url),
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body ?? null),
});

const builtIn = (name: string) => `// Burrow built-in template: ${name}. Its logic runs inside Burrow.`;

const EVENT_BODY = {
  event: '{event}',
  person: '{person}',
};

export const TEMPLATES: Template[] = [
  {
    id: 'template-webhook',
    name: 'HTTP Webhook',
    description: 'Sends a webhook templated by the incoming event data',
    icon_url: '/static/services/webhook.svg',
    category: ['Custom'],
    inputs_schema: [
      { key: 'url', type: 'string', label: 'Webhook URL', secret: false, required: true },
      {
        key: 'method',
        type: 'choice',
        label: 'Method',
        default: 'POST',
        required: false,
        choices: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((m) => ({ label: m, value: m })),
      },
      { key: 'body', type: 'json', label: 'JSON Body', default: EVENT_BODY, required: false },
      {
        key: 'headers',
        type: 'dictionary',
        label: 'Headers',
        default: { 'Content-Type': 'application/json' },
        required: false,
      },
    ],
    hog: builtIn('template-webhook'),
    request: (i) => {
      const method = str(i.method || 'POST').toUpperCase();
      const hasBody = method !== 'GET' && method !== 'DELETE';
      return {
        url: str(i.url),
        method,
        headers: headersOf(i.headers),
        body: hasBody ? (typeof i.body === 'string' ? i.body : JSON.stringify(i.body ?? null)) : null,
      };
    },
  },
  {
    id: 'template-json-post',
    name: 'JSON HTTP POST',
    description: 'POSTs a JSON body to a URL, with headers (an Authorization header is kept secret)',
    icon_url: '/static/services/webhook.svg',
    category: ['Custom'],
    inputs_schema: [
      { key: 'url', type: 'string', label: 'URL', required: true },
      { key: 'body', type: 'json', label: 'JSON body', default: EVENT_BODY, required: true },
      { key: 'headers', type: 'dictionary', label: 'Headers', default: {}, required: false },
      { key: 'authorization', type: 'string', label: 'Authorization header', secret: true, required: false },
    ],
    hog: builtIn('template-json-post'),
    request: (i) =>
      jsonPost(i.url, i.body, {
        ...headersOf(i.headers),
        ...(i.authorization ? { Authorization: str(i.authorization) } : {}),
      }),
  },
  {
    id: 'template-slack',
    name: 'Slack',
    description: 'Sends a message to a Slack channel through an incoming webhook',
    icon_url: '/static/services/slack.png',
    category: ['Customer Success'],
    inputs_schema: [
      { key: 'webhook_url', type: 'string', label: 'Incoming webhook URL', secret: true, required: true },
      {
        key: 'text',
        type: 'string',
        label: 'Plain text message',
        default: "*{person.name}* triggered event: '{event.event}'",
        required: false,
      },
      {
        key: 'blocks',
        type: 'json',
        label: 'Blocks',
        default: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: "*{person.name}* triggered event: '{event.event}'" },
          },
        ],
        required: false,
      },
    ],
    hog: builtIn('template-slack'),
    request: (i) => {
      const payload: Record<string, unknown> = { text: str(i.text) };
      if (Array.isArray(i.blocks) && i.blocks.length > 0) payload.blocks = i.blocks;
      return jsonPost(i.webhook_url, payload);
    },
  },
  {
    id: 'template-discord',
    name: 'Discord',
    description: 'Sends a message to a Discord channel through a webhook',
    icon_url: '/static/services/discord.png',
    category: ['Customer Success'],
    inputs_schema: [
      { key: 'webhookUrl', type: 'string', label: 'Webhook URL', secret: true, required: true },
      {
        key: 'content',
        type: 'string',
        label: 'Content',
        default: "**{person.name}** triggered event: '{event.event}'",
        required: true,
      },
    ],
    hog: builtIn('template-discord'),
    request: (i) => jsonPost(i.webhookUrl, { content: str(i.content) }),
  },
  {
    id: 'template-microsoft-teams',
    name: 'Microsoft Teams',
    description: 'Sends a message to a Microsoft Teams channel through a workflow webhook',
    icon_url: '/static/services/microsoft-teams.png',
    category: ['Customer Success'],
    inputs_schema: [
      { key: 'webhookUrl', type: 'string', label: 'Webhook URL', secret: true, required: true },
      {
        key: 'text',
        type: 'string',
        label: 'Text',
        default: "**{person.name}** triggered event: '{event.event}'",
        required: true,
      },
    ],
    hog: builtIn('template-microsoft-teams'),
    request: (i) =>
      jsonPost(i.webhookUrl, {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.2',
              body: [{ type: 'TextBlock', text: str(i.text), wrap: true }],
            },
          },
        ],
      }),
  },
];

const BY_ID = new Map(TEMPLATES.map((t) => [t.id, t]));
export const templateById = (id: string | null | undefined) => (id ? BY_ID.get(id) : undefined);
