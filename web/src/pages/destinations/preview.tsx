import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, api } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { formatDateTime } from '../../components/time';
import { useSession } from '../../session';
import { exampleGlobals, latestMatchingEvent, type Sample } from './sample-event';
import type { Configuration, Filters, Invocation, SentRequest } from './types';

/** How long typing must pause before the preview asks the server again. */
export const PREVIEW_DEBOUNCE_MS = 400;

/** A value that follows `value` once it has stayed the same for `ms`. */
function useDebounced<T>(value: T, key: string, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [key]);
  return settled;
}

/** The event the preview and the Test button run on: the latest matching one, or an example. */
export function useSample(filters: Filters): Sample | null {
  const { team } = useSession();
  const key = JSON.stringify(filters);
  const settled = useDebounced(filters, key, PREVIEW_DEBOUNCE_MS);
  const settledKey = JSON.stringify(settled);
  const [sample, setSample] = useState<Sample | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    latestMatchingEvent(team.id, settled, controller.signal).then(
      (found) =>
        setSample(found ? { globals: found, real: true } : { globals: exampleGlobals(settled), real: false }),
      (e) => {
        if ((e as Error).name !== 'AbortError') setSample({ globals: exampleGlobals(settled), real: false });
      },
    );
    return () => controller.abort();
  }, [team.id, settledKey]);
  return sample;
}

/** `invocations/` on a draft: `new` for a function not saved yet (PostHog's convention). */
export const invocationUrl = (projectId: number, id: string | null) =>
  `/api/projects/${projectId}/hog_functions/${id ?? 'new'}/invocations/`;

export function SampleNote({ sample }: { sample: Sample | null }) {
  const { team } = useSession();
  if (!sample) return <p class="muted small">Finding the latest matching event…</p>;
  const e = sample.globals.event;
  return sample.real ? (
    <p class="muted small">
      On the latest matching event: <code>{String(e.event)}</code> from <code>{String(e.distinct_id)}</code>{' '}
      at {formatDateTime(String(e.timestamp), team.timezone)}.
    </p>
  ) : (
    <p class="muted small">
      No event matched the filters in the last 30 days: this runs on an example <code>{String(e.event)}</code>{' '}
      event.
    </p>
  );
}

/** The request as it would go out: method, URL, headers and the body (JSON laid out). */
export function RequestView({ request, label }: { request: SentRequest; label: string }) {
  let body = request.body ?? '';
  try {
    body = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // Not JSON: shown as sent.
  }
  return (
    <section class="request-view" aria-label={label}>
      <p class="request-line">
        <strong>{request.method}</strong> <code>{request.url}</code>
      </p>
      {Object.keys(request.headers).length > 0 && (
        <dl class="facts small">
          {Object.entries(request.headers).map(([k, v]) => [
            <dt key={`${k}-k`}>{k}</dt>,
            <dd key={`${k}-v`}>{v}</dd>,
          ])}
        </dl>
      )}
      {request.body !== null && <pre class="request-body">{body}</pre>}
    </section>
  );
}

/**
 * What the destination would send for the sample event, asked of the server (the invocation with
 * fetch mocked) a moment after the form stops changing, so the preview is the server's own rendering.
 */
export function Preview({
  id,
  configuration,
  localError,
  sample,
  onFieldError,
}: {
  id: string | null;
  /** The form as it would be saved; null while a field cannot be sent as typed. */
  configuration: Configuration | null;
  localError: string | null;
  sample: Sample | null;
  /** The input the server refused (`inputs__url` → `url`), or null once it renders. */
  onFieldError: (attr: string | null, message: string | null) => void;
}) {
  const { team } = useSession();
  const key = JSON.stringify([configuration, sample]);
  const settled = useDebounced({ configuration, sample }, key, PREVIEW_DEBOUNCE_MS);
  const settledKey = JSON.stringify([settled.configuration, settled.sample]);
  const [result, setResult] = useState<Invocation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!settled.configuration || !settled.sample) return;
    const controller = new AbortController();
    setBusy(true);
    api<Invocation>(
      'POST',
      invocationUrl(team.id, id),
      { configuration: settled.configuration, globals: settled.sample.globals, mock_async_functions: true },
      { signal: controller.signal },
    ).then(
      (r) => {
        setResult(r);
        setError(null);
        setBusy(false);
        onFieldError(null, null);
      },
      (e) => {
        if ((e as Error).name === 'AbortError') return;
        setBusy(false);
        setResult(null);
        setError(e);
        const attr = e instanceof ApiFailure ? e.attr : null;
        onFieldError(attr?.startsWith('inputs__') ? attr.slice(8) : null, (e as Error).message);
      },
    );
    return () => controller.abort();
  }, [team.id, id, settledKey]);
  const stale = busy || key !== settledKey;
  return (
    <section class="card preview" aria-labelledby="preview-heading" aria-busy={stale}>
      <h2 id="preview-heading" class="editor-heading">
        Preview
      </h2>
      <SampleNote sample={sample} />
      <div>
        {localError ? (
          <p class="danger small">{localError}</p>
        ) : error ? (
          <ErrorNote error={error} />
        ) : result?.request ? (
          <RequestView request={result.request} label="Request preview" />
        ) : result ? (
          <ul class="small">
            {result.logs.map((l, i) => (
              <li key={i} class={l.level === 'error' ? 'danger' : undefined}>
                {l.message}
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted small">Rendering…</p>
        )}
      </div>
    </section>
  );
}
