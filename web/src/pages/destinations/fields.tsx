import type { InputSchema, StoredInput } from './types';

/** A field's value while it is edited: text (JSON as typed), a checkbox, or a dictionary's rows. */
export type FieldValue = string | boolean | Array<[string, string]>;
export type FieldValues = Record<string, FieldValue>;

const toText = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2);

/**
 * The form's values for a schema: a stored function's inputs, else the template's defaults. A secret
 * that is set arrives as `{secret: true}` and starts empty: the console never has its value.
 */
export function initialValues(schema: InputSchema[], inputs: Record<string, StoredInput> = {}): FieldValues {
  const out: FieldValues = {};
  for (const item of schema) {
    const stored = inputs[item.key];
    const value = stored && !stored.secret ? stored.value : stored ? undefined : item.default;
    if (item.type === 'boolean') out[item.key] = value === true;
    else if (item.type === 'dictionary')
      out[item.key] =
        value && typeof value === 'object' && !Array.isArray(value)
          ? Object.entries(value).map(([k, v]) => [k, toText(v)] as [string, string])
          : [];
    else out[item.key] = toText(value);
  }
  return out;
}

/** The keys of secrets the stored function has set (answered as `{secret: true}`). */
export const setSecrets = (inputs: Record<string, StoredInput> = {}) =>
  new Set(Object.entries(inputs).flatMap(([k, v]) => (v.secret ? [k] : [])));

/**
 * The inputs a save sends, and the fields that cannot be sent as typed (JSON that does not parse).
 * An empty secret that is set is sent as `{secret: true}`, which keeps the stored value.
 */
export function inputsOf(
  schema: InputSchema[],
  values: FieldValues,
  secrets: Set<string>,
  stored: Record<string, StoredInput> = {},
) {
  const inputs: Record<string, StoredInput> = {};
  const errors: Record<string, string> = {};
  for (const item of schema) {
    const v = values[item.key];
    // The page has no templating choice: an input set to Liquid through the API stays Liquid.
    const templating = stored[item.key]?.templating;
    if (item.type === 'boolean') inputs[item.key] = { value: v === true };
    else if (item.type === 'dictionary') {
      const rows = (Array.isArray(v) ? v : []).filter(([k]) => k.trim() !== '');
      inputs[item.key] = {
        value: Object.fromEntries(rows.map(([k, val]) => [k.trim(), val])),
        ...(templating && { templating }),
      };
    } else if (item.type === 'json') {
      const text = typeof v === 'string' ? v : '';
      if (text.trim() === '') continue;
      try {
        inputs[item.key] = { value: JSON.parse(text), ...(templating && { templating }) };
      } catch (e) {
        errors[item.key] = `Not valid JSON: ${(e as Error).message}`;
      }
    } else {
      const text = typeof v === 'string' ? v : '';
      if (text !== '') inputs[item.key] = { value: text, ...(templating && { templating }) };
      else if (item.secret && secrets.has(item.key)) inputs[item.key] = { secret: true };
    }
  }
  return { inputs, errors };
}

const fieldId = (key: string) => `input-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** One input of a template's schema, as the control its type calls for. */
export function Field({
  item,
  value,
  error,
  secretSet,
  onChange,
}: {
  item: InputSchema;
  value: FieldValue | undefined;
  /** The field's error: JSON that does not parse, or the API's refusal naming this input. */
  error?: string | undefined;
  secretSet: boolean;
  onChange: (v: FieldValue) => void;
}) {
  const id = fieldId(item.key);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [item.description || item.secret ? hintId : '', error ? errorId : '']
    .filter(Boolean)
    .join(' ');
  const label = `${item.label}${item.required ? ' (required)' : ''}`;
  const hint = (item.description || item.secret) && (
    <span id={hintId} class="muted small">
      {item.description}
      {item.secret &&
        (secretSet
          ? ' A value is saved; it is never shown. Leave empty to keep it, or type a new one.'
          : ' Secret: once saved it is never shown again.')}
    </span>
  );
  const note = error && (
    <span id={errorId} class="danger small">
      {error}
    </span>
  );
  const common = {
    id,
    'aria-describedby': described || undefined,
    'aria-invalid': error ? true : undefined,
  };
  if (item.type === 'boolean')
    return (
      <div class="field">
        <label class="check" for={id}>
          <input
            type="checkbox"
            {...common}
            checked={value === true}
            onChange={(e) => onChange(e.currentTarget.checked)}
          />
          {label}
        </label>
        {hint}
        {note}
      </div>
    );
  if (item.type === 'dictionary') {
    const rows = Array.isArray(value) ? value : [];
    const set = (i: number, at: 0 | 1, text: string) =>
      onChange(rows.map((r, j) => (j === i ? (at === 0 ? [text, r[1]] : [r[0], text]) : r)));
    return (
      <fieldset class="field dictionary" aria-describedby={described || undefined}>
        <legend>{label}</legend>
        {rows.map(([k, v], i) => (
          <div class="row wrap" key={i}>
            <label>
              {item.label} {i + 1} name
              <input value={k} onInput={(e) => set(i, 0, e.currentTarget.value)} />
            </label>
            <label>
              {item.label} {i + 1} value
              <input value={v} onInput={(e) => set(i, 1, e.currentTarget.value)} />
            </label>
            <button type="button" class="link" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove {item.label.toLowerCase()} {i + 1}
            </button>
          </div>
        ))}
        <div class="row">
          <button type="button" onClick={() => onChange([...rows, ['', '']])}>
            Add {item.label.toLowerCase()}
          </button>
        </div>
        {hint}
        {note}
      </fieldset>
    );
  }
  const text = typeof value === 'string' ? value : '';
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {item.type === 'choice' ? (
        <select {...common} value={text} onChange={(e) => onChange(e.currentTarget.value)}>
          {!item.required && <option value="">(none)</option>}
          {(item.choices ?? []).map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      ) : item.type === 'json' ? (
        <textarea
          {...common}
          class="mono"
          rows={Math.min(14, Math.max(4, text.split('\n').length + 1))}
          spellcheck={false}
          value={text}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      ) : item.secret ? (
        // Write-only: typed as a password, never filled from the server.
        <input
          {...common}
          type="password"
          autoComplete="new-password"
          placeholder={secretSet ? '•••••• (saved)' : undefined}
          required={item.required && !secretSet}
          value={text}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      ) : (
        <input
          {...common}
          type="text"
          autoComplete="off"
          required={item.required}
          value={text}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      )}
      {hint}
      {note}
    </div>
  );
}
