import { useEffect, useState } from 'preact/hooks';

interface Props {
  value: string;
  placeholder?: string;
  /** The id of a datalist offering choices. */
  list?: string;
  /** Called with the typed text when the field is committed (change: blur, Enter, a list pick). */
  onCommit: (value: string) => void;
}

/**
 * A text field whose typing is kept in its own state and handed on only when committed. A plain
 * controlled input is rewritten with the form's value on every render: a render caused by
 * something else (a query answer arriving while someone types) would wipe what was typed before
 * it was committed.
 */
export function DraftInput({ value, onCommit, placeholder, list }: Props) {
  const [draft, setDraft] = useState(value);
  // The form's value changed from elsewhere (a saved insight opened): show it.
  useEffect(() => setDraft(value), [value]);
  return (
    <input
      value={draft}
      placeholder={placeholder}
      list={list}
      onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
      onChange={(e) => onCommit((e.currentTarget as HTMLInputElement).value)}
    />
  );
}
