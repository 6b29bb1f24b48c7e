/** 1-based position in a text file. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/**
 * Offsets → 1-based line/column for one text. Built once per file so every
 * error in that file can point at its line without rescanning.
 */
export interface LineIndex {
  position(offset: number): SourcePosition;
  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string;
}

export function createLineIndex(text: string): LineIndex {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) starts.push(i + 1);
  }
  return {
    position(offset) {
      // Binary search: the last line start at or before offset.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((starts[mid] ?? 0) <= offset) lo = mid;
        else hi = mid - 1;
      }
      return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
    },
    lineText(line) {
      const start = starts[line - 1];
      if (start === undefined) return '';
      const next = starts[line];
      return text.slice(start, next === undefined ? text.length : next - 1).replace(/\r$/, '');
    },
  };
}

// Minified configs put everything on one line; show a window around the column instead.
const MAX_EXCERPT = 120;

/**
 * The offending line with a gutter and a caret under `column`:
 * ```
 *   5 | { "name": "test" "command": ["echo"] }
 *     |                  ^ expected a comma or closing brace
 * ```
 * Tabs before the column are copied into the caret line so the caret lines up
 * in any terminal, whatever its tab width.
 */
export function sourceExcerpt(index: LineIndex, position: SourcePosition, note = ''): string[] {
  let text = index.lineText(position.line);
  let column = Math.max(1, position.column);
  if (text.length > MAX_EXCERPT) {
    const start = Math.max(0, column - 1 - MAX_EXCERPT / 2);
    const end = Math.min(text.length, start + MAX_EXCERPT);
    text = `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
    column = column - start + (start > 0 ? 1 : 0);
  }
  const gutter = String(position.line);
  const pad = text
    .slice(0, column - 1)
    .replace(/[^\t]/g, ' ')
    .padEnd(column - 1, ' ');
  return [`${gutter} | ${text}`, `${' '.repeat(gutter.length)} | ${pad}^${note ? ` ${note}` : ''}`];
}
