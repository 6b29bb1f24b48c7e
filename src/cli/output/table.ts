import { forTerminal } from '../../text/index.js';

/** Left-aligned columns separated by two spaces; cells are sanitized. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const clean = rows.map((row) => row.map((cell) => forTerminal(cell).replace(/\s*\n\s*/g, ' ')));
  const widths = header.map((h, i) => Math.max(h.length, ...clean.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...clean.map(line)].join('\n');
}

/** Shorten to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, Math.max(0, max - 1))}…` : oneLine;
}
