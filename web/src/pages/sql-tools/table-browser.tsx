import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';

export interface SchemaField {
  name: string;
  hogql_value: string;
  type: string;
  table?: string;
  chain?: string[];
}
export interface SchemaTable {
  name: string;
  fields: Record<string, SchemaField>;
}

/** The project's tables from DatabaseSchemaQuery, the query PostHog's SQL editor lists them with. */
export function useSchema(projectId: number) {
  const [tables, setTables] = useState<SchemaTable[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    api<{ tables: Record<string, SchemaTable> }>('POST', `/api/environments/${projectId}/query/`, {
      query: { kind: 'DatabaseSchemaQuery' },
    }).then(
      (r) => setTables(Object.values(r.tables)),
      () => setFailed(true),
    );
  }, [projectId]);
  return { tables, failed };
}

const TYPE_LABELS: Record<string, string> = {
  lazy_table: 'join',
  virtual_table: 'group',
  field_traverser: 'alias',
};

/** Tables and their columns; choosing a column (or a table's name) puts it into the query. */
export function TableBrowser({
  tables,
  failed,
  onInsert,
}: {
  tables: SchemaTable[] | null;
  failed: boolean;
  onInsert: (text: string) => void;
}) {
  const [filter, setFilter] = useState('');
  if (failed) return <p class="muted small">The table list could not be loaded.</p>;
  if (!tables) return <p class="muted small">Loading tables…</p>;
  const needle = filter.trim().toLowerCase();
  return (
    <nav class="table-browser" aria-label="Tables">
      <label>
        Find a table or column
        <input
          type="search"
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <ul>
        {tables.map((t) => {
          const fields = Object.values(t.fields).filter(
            (f) => !needle || t.name.toLowerCase().includes(needle) || f.name.toLowerCase().includes(needle),
          );
          if (needle && fields.length === 0) return null;
          return (
            <li key={t.name}>
              <details open={needle !== '' || undefined}>
                <summary>
                  <span class="table-name">{t.name}</span>
                  <span class="muted small"> {Object.keys(t.fields).length} columns</span>
                </summary>
                <button type="button" class="link small" onClick={() => onInsert(t.name)}>
                  Insert table name
                </button>
                <ul class="columns">
                  {fields.map((f) => (
                    <li key={f.name}>
                      <button
                        type="button"
                        class="link"
                        title={`Insert ${f.hogql_value}`}
                        aria-label={`Insert column ${t.name}.${f.name}`}
                        onClick={() => onInsert(f.hogql_value)}
                      >
                        {f.name}
                      </button>
                      <span class="muted small">
                        {TYPE_LABELS[f.type] ?? f.type}
                        {f.table ? ` → ${f.table}` : ''}
                      </span>
                    </li>
                  ))}
                </ul>
              </details>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
