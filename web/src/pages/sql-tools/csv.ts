/**
 * A result as CSV (RFC 4180): every field that holds a comma, quote, CR or LF is quoted with its
 * quotes doubled; null is an empty field; arrays and maps are written as JSON. CRLF between rows,
 * as spreadsheets expect. Text that a spreadsheet would run as a formula (starting with =, +, -, @,
 * tab or CR) gets a leading apostrophe (OWASP's advice against CSV injection): event properties
 * are whatever any holder of the public project token sent, and must not run in a reader's Excel.
 */
export function toCsv(columns: readonly string[], rows: readonly unknown[][]): string {
  const lines = [columns.map(field).join(',')];
  for (const row of rows) lines.push(columns.map((_, i) => field(row[i])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  const raw = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const text = typeof value === 'string' && /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
