/**
 * CSV cells and rows (RFC 4180) for the exports of `npm run export` and the CSV answers of D238:
 * null as an empty cell, numbers and booleans as JSON writes them, lists and objects as their JSON
 * text, text that starts with = + - @ TAB or CR with a leading ' (spreadsheets would run it as a
 * formula; OWASP's CSV injection rule), and a cell with a quote, comma, CR or LF quoted.
 */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One row, without its line end. */
export const csvRow = (cells: readonly unknown[]): string => cells.map(csvCell).join(',');
