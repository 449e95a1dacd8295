import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { pythonTypeName } from '../domain/validate.js';
import { type ApiError, invalidChoice, notFound, validationError } from '../errors.js';

/**
 * Bodies are validated strictly (a JSON string is never a number); query strings and path params
 * are text on the wire, so those are coerced. Unknown body fields are dropped, as DRF ignores them,
 * which lets clients send back an object they read; a body schema marked `rejectUnknownFields`
 * refuses them instead (its read-only fields must then be declared, to be ignored by the handler).
 */
function makeAjv(coerce: boolean, removeAdditional = true) {
  const ajv = new Ajv.default({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

const strict = makeAjv(false);
const rejecting = makeAjv(false, false);
const coercing = makeAjv(true);

/** Schema option: a field the body schema does not declare is a 400 naming it, not dropped. */
export const REJECT_UNKNOWN_FIELDS = { rejectUnknownFields: true } as const;

/**
 * Compiled on a route's first request, not at startup: the routes' schemas took ~0.4 s of every
 * cold start to compile, most of them for routes a given deployment never calls. Routes registered
 * under both `/api/projects/` and `/api/environments/` share one compiled function.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const rejects = (schema as { rejectUnknownFields?: boolean }).rejectUnknownFields === true;
  const ajv = httpPart !== 'body' ? coercing : rejects ? rejecting : strict;
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= memoized(ajv, schema as object);
    const ok = compiled(data);
    validate.errors = compiled.errors;
    return ok as boolean;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

const compiledBy = new Map<Ajv.default, WeakMap<object, ValidateFunction>>();
function memoized(ajv: Ajv.default, schema: object): ValidateFunction {
  let cache = compiledBy.get(ajv);
  if (!cache) {
    cache = new WeakMap();
    compiledBy.set(ajv, cache);
  }
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

const TYPE_MESSAGES: Record<string, string> = {
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  string: 'Not a valid string.',
};

const FORMAT_MESSAGES: Record<string, string> = {
  uuid: 'Must be a valid UUID.',
  email: 'Enter a valid email address.',
  uri: 'Enter a valid URL.',
  'date-time':
    'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
};

function describe(error: ErrorObject): { detail: string; code: string } {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { detail: 'This field is required.', code: 'required' };
    case 'type': {
      if (error.data === null) return { detail: 'This field may not be null.', code: 'null' };
      const expected = String(p.type).split(',')[0] as string;
      if (expected === 'array') {
        return {
          detail: `Expected a list of items but got type "${pythonTypeName(error.data)}".`,
          code: 'not_a_list',
        };
      }
      if (expected === 'object') {
        return {
          detail: `Expected a dictionary of items but got type "${pythonTypeName(error.data)}".`,
          code: 'not_a_dict',
        };
      }
      return { detail: TYPE_MESSAGES[expected] ?? 'Invalid input.', code: 'invalid_input' };
    }
    case 'enum':
    case 'const': {
      const allowed = error.keyword === 'enum' ? (p.allowedValues as unknown[]) : [p.allowedValue];
      return { detail: invalidChoice(error.data, allowed ?? [], null).detail, code: 'invalid_choice' };
    }
    case 'minLength':
      return p.limit === 1
        ? { detail: 'This field may not be blank.', code: 'blank' }
        : { detail: `Ensure this field has at least ${p.limit} characters.`, code: 'min_length' };
    case 'maxLength':
      return { detail: `Ensure this field has no more than ${p.limit} characters.`, code: 'max_length' };
    case 'minimum':
      return { detail: `Ensure this value is greater than or equal to ${p.limit}.`, code: 'min_value' };
    case 'maximum':
      return { detail: `Ensure this value is less than or equal to ${p.limit}.`, code: 'max_value' };
    case 'minItems':
      return { detail: `Ensure this field has at least ${p.limit} elements.`, code: 'min_length' };
    case 'maxItems':
      return { detail: `Ensure this field has no more than ${p.limit} elements.`, code: 'max_length' };
    case 'additionalProperties':
      return { detail: 'This field is not supported.', code: 'unsupported_field' };
    case 'format':
      return { detail: FORMAT_MESSAGES[String(p.format)] ?? 'Invalid input.', code: 'invalid_input' };
    default:
      return { detail: 'Invalid input.', code: 'invalid_input' };
  }
}

function attrOf(error: ErrorObject): string | null {
  const parts = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required')
    parts.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties')
    parts.push(String((error.params as { additionalProperty: string }).additionalProperty));
  return parts.length > 0 ? parts.join('__') : null;
}

/** Turns a Fastify validation failure into PostHog's error body; a bad path id is simply not found. */
export function validationToApiError(errors: ErrorObject[], context: string | undefined): ApiError {
  if (context === 'params') return notFound();
  const first = errors.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf') ?? errors[0];
  if (!first) return validationError('Invalid input.');
  const attr = attrOf(first);
  if (attr === null && first.keyword === 'type' && context === 'body') {
    return validationError(
      `Invalid data. Expected a dictionary, but got ${pythonTypeName(first.data)}.`,
      null,
      'invalid_input',
    );
  }
  const { detail, code } = describe(first);
  return validationError(detail, attr, code);
}
