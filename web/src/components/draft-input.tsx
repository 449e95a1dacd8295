import { useState } from 'preact/hooks';

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
  // A draft belongs to the value it was typed over: when the form's value changes from elsewhere
  // (a saved insight opened) the field shows the new value. Derived in render, not synced in an
  // effect: an effect runs after the next frame, and on a busy machine that came after the first
  // keystrokes and wiped them.
  const [draft, setDraft] = useState({ over: value, text: value });
  const text = draft.over === value ? draft.text : value;
  return (
    <input
      value={text}
      placeholder={placeholder}
      list={list}
      onInput={(e) => setDraft({ over: value, text: (e.currentTarget as HTMLInputElement).value })}
      onChange={(e) => onCommit((e.currentTarget as HTMLInputElement).value)}
    />
  );
}
