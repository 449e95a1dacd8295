import { Type } from 'typebox';
import { PUBLIC } from '../domain/scopes.js';
import type { ApiPlugin } from './context.js';

const Check = Type.Union([Type.Literal('ok'), Type.Literal('error')]);
const Ready = Type.Object({ status: Check, checks: Type.Record(Type.String(), Check) });

/**
 * The probes' answers are built here in their schema's shape, so plain JSON.stringify writes them:
 * a first fast-json-stringify compile (its own Ajv) put ~50 ms between listening and the first
 * answer a service manager or load balancer waits for.
 */
const probeSerializer = () => JSON.stringify;

/** Liveness answers without touching a store; readiness pings each one. */
export const healthRoutes: ApiPlugin = async (app, { probes }) => {
  app.get(
    '/_health',
    {
      config: { scope: PUBLIC },
      serializerCompiler: probeSerializer,
      schema: {
        tags: ['health'],
        summary: 'Liveness',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/_readyz',
    {
      config: { scope: PUBLIC },
      serializerCompiler: probeSerializer,
      schema: {
        tags: ['health'],
        summary: 'Readiness: every store answers',
        response: { 200: Ready, 503: Ready },
      },
    },
    async (request, reply) => {
      const entries = await Promise.all(
        Object.entries(probes).map(async ([name, probe]) => {
          try {
            await probe();
            return [name, 'ok'] as const;
          } catch (err) {
            request.log.warn({ err, store: name }, 'readiness probe failed');
            return [name, 'error'] as const;
          }
        }),
      );
      const checks = Object.fromEntries(entries);
      const ok = entries.every(([, state]) => state === 'ok');
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'error', checks });
    },
  );
};
