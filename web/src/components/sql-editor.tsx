import { autocompletion, type CompletionContext } from '@codemirror/autocomplete';
import { StandardSQL, sql } from '@codemirror/lang-sql';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

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

export interface EditorHandle {
  value(): string;
  markError(start: number, end: number): void;
  focus(): void;
}

export function SqlEditor({
  initial,
  vocabulary,
  onRun,
  onReady,
  onChange,
}: {
  initial: string;
  vocabulary: () => Vocabulary;
  onRun: () => void;
  onReady: (handle: EditorHandle) => void;
  onChange?: (text: string) => void;
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
        sql({ dialect: StandardSQL, upperCaseKeywords: true, schema: vocabulary().tables }),
        autocompletion({ override: undefined }),
        StandardSQL.language.data.of({ autocomplete: hogqlCompletions(vocabulary) }),
        placeholder('SELECT event, count() FROM events GROUP BY event'),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': 'HogQL query' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange?.(u.state.doc.toString());
        }),
      ],
    });
    onReady({
      value: () => view.state.doc.toString(),
      markError: (start, end) => {
        const max = view.state.doc.length;
        const from = Math.min(Math.max(0, start), max);
        view.dispatch({
          selection: { anchor: from, head: Math.min(Math.max(from, end), max) },
          scrollIntoView: true,
        });
        view.focus();
      },
      focus: () => view.focus(),
    });
    return () => view.destroy();
  }, []);
  return <div class="sql-editor" ref={host} />;
}
