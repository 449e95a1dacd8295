import { ApiFailure } from '../api';

/** Every API error is shown where it happened, with PostHog's detail and the field it names. */
export function ErrorNote({
  error,
  retry,
  where,
}: {
  error: unknown;
  retry?: () => void;
  /** Where the error is, when the page shows it elsewhere too (the SQL editor's underline). */
  where?: string | undefined;
}) {
  const message =
    error instanceof ApiFailure
      ? `${error.body.detail ?? error.message}${error.attr ? ` (${error.attr})` : ''}`
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    <div class="error-note" role="alert">
      <span>
        {message}
        {where && <span class="where">{where}</span>}
      </span>
      {retry && (
        <button type="button" class="link" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
