import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorBody } from '../api/schemas/common.js';
import { describeScope, PUBLIC } from '../domain/scopes.js';
import { REQUEST_EXAMPLES } from './openapi-examples.js';
import { registerRedoc } from './redoc.js';
import { registerLazySwaggerUi } from './swagger-ui.js';

const DOCS_PREFIX = '/api/schema/';

const ERROR_STATUSES: Record<number, string> = {
  400: 'Validation or parse error',
  401: 'No or invalid credentials',
  403: 'Missing scope, project or organization access',
  404: 'Not found',
  413: 'Request body too large',
  415: 'Unsupported media type',
  500: 'Server error',
};

/**
 * Every /api/ route must declare its scope: a route without one stops the server from starting.
 * The scope and the common error responses are written into the route's schema, so the OpenAPI
 * document says what each operation needs and how it fails.
 */
export function installRouteContract(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config ??= {};
    if (!route.url.startsWith('/api/')) return;
    if (route.url.startsWith(DOCS_PREFIX) && !route.config.scope) route.config.scope = PUBLIC;
    const required = route.config.scope;
    if (!required) throw new Error(`Route ${[route.method].flat().join(',')} ${route.url} declares no scope`);
    if ('kind' in required && required.kind === 'public') return;
    route.schema ??= {};
    const schema = route.schema as Record<string, unknown>;
    schema.response ??= {};
    const response = schema.response as Record<number, unknown>;
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      response[Number(status)] ??= { ...ErrorBody, description };
    }
    schema.security = [{ PersonalAPIKey: [] }];
    schema['x-required-scope'] = describeScope(required);
    const note = `Required scope: \`${describeScope(required)}\``;
    schema.description = schema.description ? `${schema.description}\n\n${note}` : note;
  });
}

/**
 * The body schema as it behaves: validation drops unknown fields (Ajv `removeAdditional`) instead
 * of refusing them, as PostHog ignores them, so `additionalProperties: false` is not documented.
 */
function documentedBody(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(documentedBody);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  const refuses = (schema as { rejectUnknownFields?: boolean }).rejectUnknownFields === true;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'rejectUnknownFields') continue;
    if (key === 'additionalProperties' && value === false && !refuses) continue;
    out[key] = typeof value === 'object' ? documentedBody(value) : value;
  }
  return out;
}

type OpenApiDocument = {
  paths?: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { examples?: unknown }> } }>
  >;
};

const UNKNOWN_FIELDS = 'Unknown fields are ignored, so an object read from the API can be sent back.';
const REFUSED_FIELDS =
  "A field not listed is a 400 naming it; PostHog's read-only fields are listed and ignored, so an object read from the API can be sent back.";

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    transform: ({ schema, url }) => {
      if (!schema?.body) return { schema, url };
      const refuses = (schema.body as { rejectUnknownFields?: boolean }).rejectUnknownFields === true;
      const body = documentedBody(schema.body) as Record<string, unknown>;
      const note = refuses ? REFUSED_FIELDS : UNKNOWN_FIELDS;
      body.description = body.description ? `${body.description} ${note}` : note;
      return { schema: { ...schema, body }, url };
    },
    // Examples go in once the document is built: given to the generator inside the body schema,
    // an example's `properties` list (a property filter, PostHog's name) was read as a schema's
    // `properties` map and published as an object.
    transformObject: (documentObject) => {
      const document = (documentObject as { openapiObject: OpenApiDocument }).openapiObject;
      for (const [route, examples] of Object.entries(REQUEST_EXAMPLES)) {
        const [method, url] = route.split(' ') as [string, string];
        const path = url.replace(/:(\w+)/g, '{$1}');
        const media =
          document.paths?.[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json'];
        if (media) media.examples = examples;
      }
      return document;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Burrow API',
        version,
        description: "Self-hosted product analytics that speaks PostHog's API.",
      },
      components: {
        securitySchemes: {
          PersonalAPIKey: { type: 'http', scheme: 'bearer', description: 'A personal API key (phx_...)' },
        },
      },
    },
  });
  registerLazySwaggerUi(app, `${DOCS_PREFIX}swagger-ui`);
  registerRedoc(app, DOCS_PREFIX);
  app.get(
    DOCS_PREFIX,
    {
      config: { scope: PUBLIC },
      schema: {
        hide: true,
        querystring: Type.Object({
          format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('yaml')])),
        }),
      },
    },
    async (request, reply) => {
      const { format } = request.query as { format?: 'json' | 'yaml' };
      if (format === 'yaml') return reply.type('application/yaml').send(app.swagger({ yaml: true }));
      return reply.type('application/json').send(app.swagger());
    },
  );
}
