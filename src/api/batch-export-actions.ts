import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ExportDeps } from '../domain/batch-exports/deps.js';
import { listSteps, runTestStep } from '../domain/batch-exports/destination-tests.js';
import { getExport } from '../domain/batch-exports/service.js';
import { pauseExport, unpauseExport } from '../domain/batch-exports/state.js';
import { INTERNAL } from '../domain/scopes.js';
import { type Family, tags, withId, write } from './batch-export-common.js';
import { PartialTestStepBody, StepResult, TestStepBody } from './schemas/batch-exports.js';

/** Pause/unpause accept the export's fields as body (the spec's usage sends them) and ignore them. */
const PauseBody = Type.Optional(
  Type.Object(
    {
      backfill: Type.Optional(
        Type.Boolean({ description: 'unpause only: export the windows missed while paused' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export async function batchExportActionRoutes(app: FastifyInstance, deps: ExportDeps, family: Family) {
  const { prefix, params, scopeOf } = family;
  const byId = withId(params);
  const typed = app.withTypeProvider<import('@fastify/type-provider-typebox').TypeBoxTypeProvider>();

  typed.post(
    `${prefix}:id/pause/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Stop new runs (a running one finishes); pausing a paused export changes nothing',
        params: byId,
        body: PauseBody,
        response: { 200: Type.Object({ paused: Type.Boolean() }) },
      },
    },
    async (request) => {
      await pauseExport(deps, scopeOf(request), request.params.id);
      return { paused: true };
    },
  );

  typed.post(
    `${prefix}:id/unpause/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Resume the schedule; with {"backfill": true} also export the windows missed while paused',
        params: byId,
        body: PauseBody,
        response: { 200: Type.Object({ paused: Type.Boolean() }) },
      },
    },
    async (request) => {
      await unpauseExport(deps, scopeOf(request), request.params.id, request.body?.backfill ?? false);
      return { paused: false };
    },
  );

  typed.get(
    `${prefix}test/`,
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: 'The steps of a destination test, not yet run',
        params,
        querystring: Type.Object({ destination: Type.Optional(Type.String({ maxLength: 100 })) }),
        response: { 200: Type.Object({ steps: Type.Array(StepResult) }) },
      },
    },
    async (request) => listSteps(deps, request.query.destination),
  );

  typed.post(
    `${prefix}run_test_step_new/`,
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: 'Run one destination test step against a batch export payload (not saved)',
        params,
        body: TestStepBody,
        response: { 200: StepResult },
      },
    },
    async (request) => runTestStep(deps, request.body),
  );

  typed.post(
    `${prefix}:id/run_test_step/`,
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: "Run one destination test step with the export's stored config under the request's",
        params: byId,
        body: PartialTestStepBody,
        response: { 200: StepResult },
      },
    },
    async (request) => {
      const stored = await getExport(deps, scopeOf(request), request.params.id);
      return runTestStep(deps, request.body, stored);
    },
  );
}
