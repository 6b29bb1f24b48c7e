/**
 * Word-wraps `text` to `width` columns, each line prefixed with `indent`; paragraphs (blank
 * lines) and the text's own line breaks are kept. Without a width (output piped) lines are
 * only indented: a script gets the full text.
 */
export function wrapText(text: string, width: number | undefined, indent = ''): string[] {
  const lines: string[] = [];
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    if (width === undefined || indent.length + line.length <= width) {
      lines.push(`${indent}${line}`.trimEnd());
      continue;
    }
    const room = Math.max(20, width - indent.length);
    let current = '';
    for (const word of line.split(/\s+/)) {
      if (current !== '' && current.length + 1 + word.length > room) {
        lines.push(`${indent}${current}`);
        current = '';
      }
      // A word longer than the line (a URL) is cut rather than overflowing the terminal.
      let rest = word;
      while (rest.length > room) {
        if (current !== '') {
          lines.push(`${indent}${current}`);
          current = '';
        }
        lines.push(`${indent}${rest.slice(0, room)}`);
        rest = rest.slice(room);
      }
      current = current === '' ? rest : `${current} ${rest}`;
    }
    lines.push(`${indent}${current}`.trimEnd());
  }
  // Drop trailing blank lines; keep the paragraphs inside.
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  return lines;
}
