import { randomUUID } from 'node:crypto';
import { notFound, validationError } from '../../errors.js';
import {
  findHogFunction,
  type HogFunctionRecord,
  insertHogFunction,
  listHogFunctions,
  updateHogFunction,
} from '../../store/meta/hog-functions.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { type OutgoingRequest, templateById } from './templates.js';
import {
  asValidation,
  checkHogTemplate,
  checkTemplate,
  type Globals,
  type LiquidEngine,
  renderValue,
  type Templating,
} from './templating.js';

export const CUSTOM_HOG_REFUSED = 'custom Hog code is not supported yet; use a template';
const TYPES = ['destination'] as const;

export interface HogFunctionInput {
  type?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
  template_id?: string | null | undefined;
  hog?: string | undefined;
  icon_url?: string | null | undefined;
  inputs_schema?: Array<Record<string, unknown>> | undefined;
  inputs?: Record<string, Record<string, unknown>> | null | undefined;
  filters?: Record<string, unknown> | null | undefined;
  masking?: Record<string, unknown> | null | undefined;
}

/** The port server/ fills: one request through the network guard, with a timeout. */
export type Sender = (request: OutgoingRequest) => Promise<Delivery>;

export interface DestinationDeps extends Deps {
  send: Sender;
  /** Where Liquid inputs are parsed and rendered (worker threads, off the event loop). */
  liquid: LiquidEngine;
  siteUrl?: string | undefined;
}

/** What a client is shown: secret inputs carry `{secret: true}` and never their value. */
export function viewOf(f: HogFunctionRecord) {
  const secret = new Set(f.inputsSchema.filter((s) => s.secret === true).map((s) => String(s.key)));
  const inputs: Record<string, Record<string, unknown>> = {};
  for (const [key, input] of Object.entries(f.inputs)) {
    inputs[key] = secret.has(key) ? { secret: true } : input;
  }
  return { ...f, inputs };
}

function checkFilters(filters: Record<string, unknown>): Record<string, unknown> {
  for (const key of ['events', 'actions', 'properties'] as const) {
    const v = filters[key];
    if (v !== undefined && !Array.isArray(v)) throw validationError(`'${key}' must be a list`, 'filters');
  }
  return filters;
}

function checkMasking(masking: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!masking) return null;
  const ttl = Number(masking.ttl);
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > 86_400 * 365)
    throw validationError('masking.ttl must be between 60 and 31536000 seconds', 'masking');
  if (typeof masking.hash !== 'string' || masking.hash.length === 0 || masking.hash.length > 1000)
    throw validationError('masking.hash is required (a template such as {person.id})', 'masking');
  checkHogTemplate(masking.hash);
  const threshold = masking.threshold ?? null;
  if (threshold !== null && (!Number.isInteger(threshold) || (threshold as number) < 1))
    throw validationError('masking.threshold must be a positive integer or null', 'masking');
  return { ttl, hash: masking.hash, threshold };
}

/**
 * Inputs checked against the schema: required keys present, every templated value parses.
 * A secret input sent back as `{secret: true}` (or left out) keeps its stored value.
 */
async function mergeInputs(
  liquid: LiquidEngine,
  schema: Array<Record<string, unknown>>,
  sent: Record<string, Record<string, unknown>>,
  stored: Record<string, Record<string, unknown>>,
): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const item of schema) {
    const key = String(item.key);
    const given = sent[key];
    let input: Record<string, unknown> | undefined =
      given && !(given.secret === true && !('value' in given)) ? given : undefined;
    if (!input && item.secret === true) input = stored[key];
    if (!input && item.default !== undefined) input = { value: item.default };
    if (input === undefined || input.value === undefined || input.value === '' || input.value === null) {
      if (item.required === true) throw validationError(`This field is required.`, `inputs__${key}`);
      continue;
    }
    const templating = (input.templating ?? 'hog') as string;
    if (templating !== 'hog' && templating !== 'liquid')
      throw validationError(`templating must be 'hog' or 'liquid'`, `inputs__${key}`);
    if (item.templating !== false) {
      try {
        await checkTemplate(input.value, templating, liquid);
      } catch (error) {
        asValidation(error, `inputs__${key}`);
      }
    }
    out[key] = { value: input.value, templating };
  }
  return out;
}

async function validate(
  liquid: LiquidEngine,
  body: HogFunctionInput,
  current: HogFunctionRecord | undefined,
) {
  const type = body.type ?? current?.type ?? 'destination';
  if (!(TYPES as readonly string[]).includes(type))
    throw validationError(`Only 'destination' hog functions are supported`, 'type');
  const templateId = body.template_id !== undefined ? body.template_id : (current?.templateId ?? null);
  const template = templateById(templateId);
  if (!template) {
    if (body.hog !== undefined && body.hog.trim() !== '') throw validationError(CUSTOM_HOG_REFUSED, 'hog');
    throw validationError(
      `Unknown template '${templateId ?? ''}'; pick one of hog_function_templates/`,
      'template_id',
    );
  }
  if (body.hog !== undefined && body.hog.trim() !== '' && body.hog !== template.hog)
    throw validationError(CUSTOM_HOG_REFUSED, 'hog');
  // The template's schema is authoritative: its logic reads exactly these inputs.
  const inputsSchema = template.inputs_schema as unknown as Array<Record<string, unknown>>;
  const inputs = await mergeInputs(
    liquid,
    inputsSchema,
    body.inputs ?? current?.inputs ?? {},
    current?.inputs ?? {},
  );
  const filters = checkFilters(body.filters ?? current?.filters ?? {});
  const masking = checkMasking(body.masking !== undefined ? body.masking : (current?.masking ?? null));
  const name = body.name ?? current?.name ?? template.name;
  if (!name.trim()) throw validationError('This field may not be blank.', 'name');
  return { type, template, inputsSchema, inputs, filters, masking, name };
}

/** A record from a checked body: what `create` stores and what a draft's invocation runs. */
function recordOf(
  deps: Deps,
  access: ProjectAccess,
  body: HogFunctionInput,
  v: Awaited<ReturnType<typeof validate>>,
  base: { id: string; createdBy: number | null; createdAt: string },
): HogFunctionRecord {
  const at = deps.now().toISOString();
  return {
    id: base.id,
    teamId: access.team.id,
    type: v.type,
    name: v.name,
    description: body.description ?? v.template.description,
    enabled: body.enabled ?? false,
    deleted: false,
    templateId: v.template.id,
    hog: v.template.hog,
    iconUrl: body.icon_url ?? v.template.icon_url,
    inputsSchema: v.inputsSchema,
    inputs: v.inputs,
    filters: v.filters,
    masking: v.masking,
    createdAt: base.createdAt,
    createdBy: base.createdBy,
    updatedAt: at,
  };
}

export async function createHogFunction(
  deps: Deps & { liquid: LiquidEngine },
  access: ProjectAccess,
  principal: Principal,
  body: HogFunctionInput,
) {
  const v = await validate(deps.liquid, body, undefined);
  const record = recordOf(deps, access, body, v, {
    id: randomUUID(),
    createdBy: principal.user.id,
    createdAt: deps.now().toISOString(),
  });
  await insertHogFunction(deps.meta, record);
  return record;
}

export async function getHogFunction(deps: Deps, access: ProjectAccess, id: string) {
  const found = await findHogFunction(deps.meta, access.team.id, id);
  if (!found) throw notFound();
  return found;
}

export const listDestinations = (
  deps: Deps,
  access: ProjectAccess,
  page: { limit: number; offset: number; type?: string | undefined; enabled?: boolean | undefined },
) => listHogFunctions(deps.meta, access.team.id, page);

export async function changeHogFunction(
  deps: Deps & { liquid: LiquidEngine },
  access: ProjectAccess,
  id: string,
  body: HogFunctionInput,
) {
  const current = await getHogFunction(deps, access, id);
  const v = await validate(deps.liquid, body, current);
  const change: Partial<HogFunctionRecord> = {
    type: v.type,
    name: v.name,
    templateId: v.template.id,
    hog: v.template.hog,
    inputsSchema: v.inputsSchema,
    inputs: v.inputs,
    filters: v.filters,
    masking: v.masking,
    updatedAt: deps.now().toISOString(),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
    // Enabled again after disabling itself: its failure clock starts afresh.
    ...(body.enabled === true && !current.enabled && { failingSince: null }),
    ...(body.icon_url !== undefined && { iconUrl: body.icon_url }),
  };
  await updateHogFunction(deps.meta, access.team.id, id, change);
  return { ...current, ...change };
}

export async function deleteHogFunction(deps: Deps, access: ProjectAccess, id: string) {
  await getHogFunction(deps, access, id);
  await updateHogFunction(deps.meta, access.team.id, id, {
    deleted: true,
    enabled: false,
    updatedAt: deps.now().toISOString(),
  });
}

/** The globals an invocation sees, completed with the project and source PostHog adds. */
export function globalsFor(
  deps: { siteUrl?: string | undefined },
  team: { id: number; name: string },
  f: Pick<HogFunctionRecord, 'id' | 'name'>,
  given: Globals,
): Globals {
  const base = deps.siteUrl ?? '';
  const event = (given.event ?? {}) as Record<string, unknown>;
  const person = (given.person ?? null) as Record<string, unknown> | null;
  return {
    event: {
      uuid: event.uuid ?? randomUUID(),
      event: event.event ?? '$pageview',
      distinct_id: event.distinct_id ?? '',
      properties: event.properties ?? {},
      elements_chain: event.elements_chain ?? '',
      timestamp: event.timestamp ?? new Date().toISOString(),
      url: event.url ?? `${base}/project/${team.id}/events/${String(event.uuid ?? '')}`,
    },
    person: person
      ? {
          id: person.id ?? '',
          properties: person.properties ?? {},
          name: person.name ?? String(event.distinct_id ?? ''),
          url: person.url ?? `${base}/project/${team.id}/person/${String(person.id ?? '')}`,
        }
      : null,
    groups: given.groups ?? {},
    project: { id: team.id, name: team.name, url: `${base}/project/${team.id}` },
    source: { name: f.name, url: `${base}/project/${team.id}/pipeline/destinations/hog-${f.id}` },
  };
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  timestamp: string;
  message: string;
}

/** The request a destination would send for these globals. Throws TemplateError. */
export async function buildRequest(
  f: HogFunctionRecord,
  globals: Globals,
  liquid: LiquidEngine,
): Promise<OutgoingRequest> {
  const template = templateById(f.templateId);
  if (!template) throw new Error(`Unknown template ${f.templateId}`);
  const rendered: Record<string, unknown> = {};
  const scope: Globals = { ...globals, inputs: rendered };
  for (const item of f.inputsSchema) {
    const key = String(item.key);
    const input = f.inputs[key];
    if (!input) continue;
    rendered[key] =
      item.templating === false
        ? input.value
        : await renderValue(input.value, (input.templating as Templating) ?? 'hog', scope, liquid);
  }
  return template.request(rendered);
}

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The most of an answer read: a destination answering without end is cut off there. */
export const DELIVERY_MAX_ANSWER_BYTES = 1024 * 1024;

export interface Delivery {
  status: number | null;
  text: string;
  error: string | null;
  /** Whether trying again may help: 5xx, 429, a timeout or a broken connection. */
  retryable: boolean;
  /** The answer was longer than `DELIVERY_MAX_ANSWER_BYTES` and was cut off. */
  truncated?: boolean;
}

/** `invocations/`: runs one destination on a sample event; sends only when not mocked. */
export async function invoke(
  deps: DestinationDeps,
  access: ProjectAccess,
  id: string,
  body: {
    globals?: Globals | undefined;
    mock_async_functions?: boolean | undefined;
    configuration?: HogFunctionInput | undefined;
  },
) {
  // As PostHog: `configuration` is the function as it would be saved (a form not saved yet, under
  // the id `new`); secrets it leaves out or sends as {secret: true} are the stored function's.
  const stored = id === 'new' ? undefined : await getHogFunction(deps, access, id);
  if (!stored && !body.configuration)
    throw validationError('configuration is required to run a function not saved yet', 'configuration');
  const f = body.configuration
    ? recordOf(deps, access, body.configuration, await validate(deps.liquid, body.configuration, stored), {
        id: stored?.id ?? 'new',
        createdBy: stored?.createdBy ?? null,
        createdAt: stored?.createdAt ?? deps.now().toISOString(),
      })
    : (stored as HogFunctionRecord);
  const logs: LogEntry[] = [];
  const log = (level: LogEntry['level'], message: string) =>
    logs.push({ level, timestamp: new Date().toISOString(), message });
  const globals = globalsFor(deps, access.team, f, body.globals ?? {});
  let request: OutgoingRequest;
  try {
    request = await buildRequest(f, globals, deps.liquid);
  } catch (error) {
    log('error', (error as Error).message);
    return { status: 'error', logs, request: null };
  }
  const shown = redactSecrets(f, request);
  if (body.mock_async_functions ?? true) {
    log('info', `Async function 'fetch' was mocked with arguments: ${shown.method} ${shown.url}`);
    return { status: 'success', logs, request: shown };
  }
  const started = Date.now();
  const result = await deps.send(request);
  if (result.error) log('error', redact(f, `Request to ${request.url} failed: ${result.error}`));
  else log('info', `Request to ${shown.url} answered ${result.status} in ${Date.now() - started} ms`);
  return { status: result.error ? 'error' : 'success', logs, request: shown };
}

/** Secret input values never leave Burrow in an answer: each occurrence shows as `***`. */
export function redact(f: HogFunctionRecord, text: string): string {
  let out = text;
  for (const item of f.inputsSchema) {
    if (item.secret !== true) continue;
    const value = f.inputs[String(item.key)]?.value;
    if (typeof value === 'string' && value.length >= 4) out = out.split(value).join('***');
  }
  return out;
}

function redactSecrets(f: HogFunctionRecord, req: OutgoingRequest): OutgoingRequest {
  return JSON.parse(redact(f, JSON.stringify(req))) as OutgoingRequest;
}
