import { autocompletion, type CompletionContext } from '@codemirror/autocomplete';
import { StandardSQL, sql } from '@codemirror/lang-sql';
import { type Diagnostic, linter, lintGutter, setDiagnostics } from '@codemirror/lint';
import type { EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';
import { sqlHighlight } from './sql-highlight';

export interface Vocabulary {
  tables: Record<string, string[]>;
  functions: string[];
  eventNames: string[];
  propertyNames: string[];
}

/** Completes property names after `properties.` and event names inside quotes, beside SQL's own. */
function hogqlCompletions(vocabulary: () => Vocabulary) {
  return (context: CompletionContext) => {
    const property = context.matchBefore(/properties\.[\w$]*/);
    if (property) {
      return {
        from: property.from + 'properties.'.length,
        options: vocabulary().propertyNames.map((label) => ({ label, type: 'property' })),
      };
    }
    const quoted = context.matchBefore(/'[\w$ ]*/);
    if (quoted) {
      return {
        from: quoted.from + 1,
        options: vocabulary().eventNames.map((label) => ({ label, type: 'text' })),
      };
    }
    const word = context.matchBefore(/\w+/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    return {
      from: word.from,
      options: vocabulary().functions.map((label) => ({ label, type: 'function', apply: `${label}(` })),
    };
  };
}

/** An error as HogQLMetadata lists it: offsets count code points (PostHog's), not UTF-16 units. */
export interface QueryNotice {
  message: string;
  start?: number | null;
  end?: number | null;
}

/** The UTF-16 index (what the editor counts) of code point `n` of `text`. */
function utf16At(text: string, n: number): number {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points >= n) break;
    units += ch.length;
    points++;
  }
  return units;
}

/** Notices with a span as editor diagnostics; an empty span (end of input) covers a character. */
export function diagnosticsOf(state: EditorState, notices: QueryNotice[]): Diagnostic[] {
  const text = state.doc.toString();
  const out: Diagnostic[] = [];
  for (const n of notices) {
    if (typeof n.start !== 'number') continue;
    let from = utf16At(text, n.start);
    let to = utf16At(text, typeof n.end === 'number' ? Math.max(n.end, n.start) : n.start);
    if (from === to) {
      if (to < text.length) to++;
      else if (from > 0) from--;
    }
    out.push({ from, to, severity: 'error', message: n.message, source: 'HogQL' });
  }
  return out;
}

export interface EditorHandle {
  value(): string;
  /** Underlines the errors' spans (from a failed run); returns where the first one starts. */
  markErrors(notices: QueryNotice[]): { line: number; column: number } | null;
  focus(): void;
  /** Puts text at the cursor (replacing a selection), as a table browser inserts a column. */
  insert(text: string): void;
  /** Replaces the whole query (a query from history, a saved insight). */
  setValue(text: string): void;
}

export function SqlEditor({
  initial,
  vocabulary,
  onRun,
  onReady,
  onChange,
  check,
}: {
  initial: string;
  vocabulary: () => Vocabulary;
  onRun: () => void;
  onReady: (handle: EditorHandle) => void;
  onChange?: (text: string) => void;
  /** Checks the text while the user types (debounced by the linter); errors are underlined. */
  check?: (text: string) => Promise<QueryNotice[]>;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      doc: initial,
      extensions: [
        keymap.of(
          ['Mod-Enter', 'Shift-Enter'].map((key) => ({
            key,
            run: () => {
              onRun();
              return true;
            },
          })),
        ),
        basicSetup,
        // Before basicSetup's fallback style in effect: a non-fallback style replaces it.
        sqlHighlight,
        sql({ dialect: StandardSQL, upperCaseKeywords: true, schema: vocabulary().tables }),
        autocompletion({ override: undefined }),
        StandardSQL.language.data.of({ autocomplete: hogqlCompletions(vocabulary) }),
        placeholder('SELECT event, count() FROM events GROUP BY event'),
        ...(check
          ? [
              lintGutter(),
              // The linter waits for a pause in typing, and drops an answer if the text moved on.
              linter(async (view) => diagnosticsOf(view.state, await check(view.state.doc.toString())), {
                delay: 600,
              }),
            ]
          : []),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': 'HogQL query' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange?.(u.state.doc.toString());
        }),
      ],
    });
    onReady({
      value: () => view.state.doc.toString(),
      markErrors: (notices) => {
        const diagnostics = diagnosticsOf(view.state, notices);
        view.dispatch(setDiagnostics(view.state, diagnostics));
        const first = diagnostics[0];
        if (!first) return null;
        // Shown, not selected: typing must not replace the text the error is about.
        view.dispatch({ effects: EditorView.scrollIntoView(first.from, { y: 'center' }) });
        const line = view.state.doc.lineAt(first.from);
        return { line: line.number, column: first.from - line.from + 1 };
      },
      focus: () => view.focus(),
      insert: (text) => {
        const { from, to } = view.state.selection.main;
        view.dispatch({
          changes: { from, to, insert: text },
          selection: { anchor: from + text.length },
          scrollIntoView: true,
        });
        view.focus();
      },
      setValue: (text) => {
        view.dispatch({
          changes: { from: 0, to: view.state.doc.length, insert: text },
          selection: { anchor: text.length },
        });
      },
    });
    return () => view.destroy();
  }, []);
  return <div class="sql-editor" ref={host} />;
}
