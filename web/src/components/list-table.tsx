import type { ComponentChildren } from 'preact';
import { ErrorNote } from './error-note';

export interface SimpleTableProps<T> {
  items: readonly T[];
  /** The column headings, as the table's accessible column names. */
  columns: readonly string[];
  /** A last column of row buttons: its heading is for screen readers only, as it would say nothing on screen. */
  actions?: boolean;
  rowKey: (item: T) => string | number;
  /** One item's `<td>`s, in the order of `columns` (and its buttons' cell last, with `actions`). */
  cells: (item: T) => ComponentChildren;
  /** Classes besides `simple`, for a page's own table styles (`events`, `clickable`). */
  tableClass?: string;
  rowClass?: (item: T) => string;
  /** A full-width row under an item's own, for what it expands to (an export's runs, an event's properties). */
  detail?: (item: T) => ComponentChildren;
}

/** The console's list table: one head row of headings, one body row per item (and its detail row, if any). */
export function SimpleTable<T>({
  items,
  columns,
  actions,
  rowKey,
  cells,
  tableClass,
  rowClass,
  detail,
}: SimpleTableProps<T>) {
  const width = columns.length + (actions ? 1 : 0);
  return (
    <table class={tableClass ? `simple ${tableClass}` : 'simple'}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c}>{c}</th>
          ))}
          {actions && (
            <th>
              <span class="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {items.map((item) => {
          const key = rowKey(item);
          const more = detail?.(item);
          return [
            <tr key={key} class={rowClass?.(item)}>
              {cells(item)}
            </tr>,
            more ? (
              <tr key={`${key}-detail`}>
                <td colSpan={width}>{more}</td>
              </tr>
            ) : null,
          ];
        })}
      </tbody>
    </table>
  );
}

/**
 * A loaded list as the console pages show one: the load's (or an action's) error, a placeholder while
 * `items` is null, a muted note when the list is empty, else the table. Without `empty` an empty list
 * shows nothing (a list that is empty only until something is added below it).
 */
export function ListTable<T>({
  items,
  error,
  empty,
  loading,
  ...table
}: Omit<SimpleTableProps<T>, 'items'> & {
  items: readonly T[] | null;
  error?: unknown;
  empty?: ComponentChildren;
  loading?: ComponentChildren;
}) {
  const failed = error !== null && error !== undefined;
  return (
    <>
      {failed && <ErrorNote error={error} />}
      {items === null && !failed && loading}
      {items?.length === 0 && empty && <p class="muted">{empty}</p>}
      {items && items.length > 0 && <SimpleTable items={items} {...table} />}
    </>
  );
}
