/** Aligned text tables for people: a header row, columns two spaces apart, no trailing blanks. */

/** `rows` under `headers`, each column as wide as its widest cell. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)));
  return all.map((row) => `${row.map((cell, column) => (cell ?? "").padEnd(widths[column])).join("  ").trimEnd()}\n`).join("");
}

/** Lines `key  value`, keys aligned; undefined values left out. */
export function formatFields(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  const shown = fields.filter((field): field is readonly [string, string] => field[1] !== undefined);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${value}\n`).join("");
}
