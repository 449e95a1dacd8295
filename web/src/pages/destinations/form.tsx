import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiFailure, api } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { useSession } from '../../session';
import { EventsFilter } from './events-filter';
import { Field, type FieldValues, initialValues, inputsOf, setSecrets } from './fields';
import { invocationUrl, Preview, RequestView, SampleNote, useSample } from './preview';
import { eventNames } from './sample-event';
import type { Configuration, HogFunction, Invocation, Template } from './types';

/**
 * A destination's form: its name, the template's inputs as fields, the events it runs on, a live
 * preview of the request for the latest matching event, a Test that really sends it, and Save.
 * A new destination is saved disabled: it starts sending once enabled.
 */
export function DestinationForm({
  template,
  fn,
  onSaved,
}: {
  template: Template;
  /** The saved destination being changed; none for a new one. */
  fn?: HogFunction;
  onSaved: (saved: HogFunction) => void;
}) {
  const { team } = useSession();
  const schema = fn?.inputs_schema ?? template.inputs_schema;
  const secrets = useMemo(() => setSecrets(fn?.inputs), [fn]);
  const [name, setName] = useState(fn?.name ?? template.name);
  const [values, setValues] = useState<FieldValues>(() => initialValues(schema, fn?.inputs));
  const [events, setEvents] = useState<string[]>(() => (fn ? eventNames(fn.filters) : []));
  const [testAccounts, setTestAccounts] = useState(fn?.filters.filter_test_accounts === true);
  const [serverField, setServerField] = useState<{ key: string; message: string } | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [test, setTest] = useState<Invocation | null>(null);
  const [testError, setTestError] = useState<unknown>(null);
  const [testing, setTesting] = useState(false);
  useEffect(() => {
    setTest(null);
    setTestError(null);
  }, [JSON.stringify(values), JSON.stringify(events)]);

  const { inputs, errors } = inputsOf(schema, values, secrets, fn?.inputs);
  const filters = {
    ...(fn?.filters ?? {}),
    events: events.map((e) => ({ id: e, name: e, type: 'events' as const })),
    filter_test_accounts: testAccounts,
  };
  const localErrors = Object.entries(errors);
  const configuration: Configuration | null = localErrors.length
    ? null
    : { name: name.trim() || template.name, template_id: template.id, inputs, filters };
  const sample = useSample(filters);
  const fieldError = (key: string) =>
    errors[key] ?? (serverField?.key === key ? serverField.message : undefined);

  const runTest = async () => {
    if (!configuration || !sample) return;
    setTesting(true);
    setTest(null);
    setTestError(null);
    try {
      setTest(
        await api<Invocation>('POST', invocationUrl(team.id, fn?.id ?? null), {
          configuration,
          globals: sample.globals,
          mock_async_functions: false,
        }),
      );
    } catch (e) {
      setTestError(e);
    } finally {
      setTesting(false);
    }
  };

  const save = async (e: Event) => {
    e.preventDefault();
    if (!configuration) return;
    setSaving(true);
    setSaveError(null);
    try {
      const saved = fn
        ? await api<HogFunction>('PATCH', `/api/projects/${team.id}/hog_functions/${fn.id}/`, configuration)
        : await api<HogFunction>('POST', `/api/projects/${team.id}/hog_functions/`, {
            ...configuration,
            type: 'destination',
            enabled: false,
          });
      onSaved(saved);
    } catch (err) {
      const attr = err instanceof ApiFailure ? err.attr : null;
      if (attr?.startsWith('inputs__'))
        setServerField({ key: attr.slice(8), message: (err as Error).message });
      setSaveError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div class="destination-editor">
      <form class="form wide" onSubmit={save} aria-label={fn ? 'Destination settings' : 'New destination'}>
        <div class="field">
          <label for="destination-name">Name</label>
          <input
            id="destination-name"
            required
            maxLength={400}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <fieldset class="card">
          <legend>{template.name} inputs</legend>
          <p class="muted small">
            Text fields are templates: <code>{'{event.event}'}</code>,{' '}
            <code>{'{event.properties.plan}'}</code>, <code>{'{person.properties.email}'}</code>,{' '}
            <code>{'{project.name}'}</code>.
          </p>
          {schema.map((item) => (
            <Field
              key={item.key}
              item={item}
              value={values[item.key]}
              error={fieldError(item.key)}
              secretSet={secrets.has(item.key)}
              onChange={(v) => setValues({ ...values, [item.key]: v })}
            />
          ))}
        </fieldset>
        <fieldset class="card">
          <legend>Filters</legend>
          <EventsFilter events={events} onChange={setEvents} />
          <label class="check" style={{ marginTop: '0.75rem' }}>
            <input
              type="checkbox"
              checked={testAccounts}
              onChange={(e) => setTestAccounts(e.currentTarget.checked)}
            />
            Filter out internal and test users
          </label>
          {(fn?.filters.actions?.length ?? 0) + (fn?.filters.properties?.length ?? 0) > 0 && (
            <p class="muted small">
              This destination's action and property filters are kept as set through the API.
            </p>
          )}
        </fieldset>
        <Preview
          id={fn?.id ?? null}
          configuration={configuration}
          localError={
            localErrors.length ? `Fix ${localErrors.map(([k]) => k).join(', ')} to see the preview.` : null
          }
          sample={sample}
          onFieldError={(key, message) => setServerField(key && message ? { key, message } : null)}
        />
        <section class="card" aria-labelledby="test-heading">
          <h2 id="test-heading" class="editor-heading">
            Test
          </h2>
          <p class="muted small">Sends the request above for real, once, without saving.</p>
          <div class="row wrap">
            <button type="button" onClick={runTest} disabled={testing || !configuration || !sample}>
              {testing ? 'Testing…' : 'Test'}
            </button>
          </div>
          <div aria-live="polite">
            {testError !== null && <ErrorNote error={testError} />}
            {test && (
              <div class="test-result">
                <p>
                  <span class={`pill ${test.status === 'success' ? 'status-running' : 'status-failed'}`}>
                    {test.status === 'success' ? 'Test succeeded' : 'Test failed'}
                  </span>
                </p>
                <SampleNote sample={sample} />
                <ul class="log-lines small">
                  {test.logs.map((l, i) => (
                    <li key={i} class={l.level === 'error' ? 'danger' : undefined}>
                      {l.level.toUpperCase()}: {l.message}
                    </li>
                  ))}
                </ul>
                {test.request && <RequestView request={test.request} label="Request sent" />}
              </div>
            )}
          </div>
        </section>
        {saveError !== null && <ErrorNote error={saveError} />}
        <div class="row wrap">
          <button type="submit" class="primary" disabled={saving || !configuration}>
            {fn ? 'Save changes' : 'Create destination'}
          </button>
          {!fn && (
            <span class="muted small">It is created disabled: enable it when the test looks right.</span>
          )}
        </div>
      </form>
    </div>
  );
}
