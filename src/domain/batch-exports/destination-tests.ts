import { notFound, validationError } from '../../errors.js';
import type { BatchExportRecord } from '../../store/meta/batch-exports.js';
import type { ExportDeps } from './deps.js';
import { checkConfig, withDefaults } from './destinations/config.js';
import { StepFailure } from './destinations/types.js';
import { fullConfig } from './service.js';
import { DESTINATION_TYPES, type DestinationType } from './types.js';
import { checkFields, destinationType, type ExportInput } from './validate.js';

/** How long one test step may take before it is reported as failed. */
const STEP_TIMEOUT_MS = 15_000;

export interface StepView {
  name: string;
  description: string;
  result: { status: 'Passed' | 'Failed'; message: string | null } | null;
}

function supported(deps: ExportDeps, type: string | undefined): DestinationType {
  if (type === undefined || type === '')
    throw validationError('This field is required.', 'destination', 'required');
  const found = DESTINATION_TYPES.find((t) => t === type);
  if (!found || deps.destinations[found].steps.length === 0)
    throw notFound(`Unsupported destination: ${type}`);
  return found;
}

/**
 * `GET …/test?destination=X`: the steps a test of that destination runs, not yet run. Without
 * `destination` the spec's plain GET answers 200 (PostHog gives a bare 400): no steps.
 */
export function listSteps(deps: ExportDeps, type: string | undefined): { steps: StepView[] } {
  if (type === undefined) return { steps: [] };
  const steps = deps.destinations[supported(deps, type)].steps;
  return { steps: steps.map((s) => ({ name: s.name, description: s.description, result: null })) };
}

/**
 * Runs step `step` against the request's destination config, merged over the stored one when an
 * existing export is tested (so its secrets need not be sent again).
 */
export async function runTestStep(
  deps: ExportDeps,
  input: ExportInput & { step?: number },
  stored?: BatchExportRecord,
): Promise<StepView> {
  const fields = checkFields(input, !stored);
  const type = supported(deps, input.destination?.type ?? stored?.destinationType);
  if (stored && input.destination?.type !== undefined) destinationType(input.destination.type);
  const destination = deps.destinations[type];
  const given = checkConfig(input.destination?.config ?? {}, destination.fields, false);
  const base = stored && stored.destinationType === type ? fullConfig(deps, stored) : {};
  // Validated as a saved export would be (PostHog runs the full serializer first), host checks
  // included: a test step connects exactly as a run would.
  const checked = checkConfig({ ...base, ...given }, destination.fields, true);
  const model = fields.model ?? stored?.model ?? 'events';
  const config = withDefaults((await destination.validate?.(checked, model)) ?? checked, destination.fields);
  const index = input.step ?? 0;
  const step = destination.steps[index];
  if (!step) throw validationError(`Step ${index} does not exist.`, 'step');
  const view = { name: step.name, description: step.description };
  if (step.needs.some((k) => config[k] === undefined || config[k] === null || config[k] === '')) {
    return {
      ...view,
      result: { status: 'Failed', message: "The test step cannot run as it's not configured." },
    };
  }
  const signal = AbortSignal.timeout(STEP_TIMEOUT_MS);
  try {
    await step.run(config, signal);
    return { ...view, result: { status: 'Passed', message: null } };
  } catch (error) {
    const message =
      error instanceof StepFailure
        ? error.message
        : `The test step failed with an unknown error: ${error instanceof Error ? error.message : String(error)}.`;
    return { ...view, result: { status: 'Failed', message } };
  }
}
