/**
 * Markdown as the docs tests read it: the lines outside fenced code blocks, where links, headings
 * and prose mean something.
 */
export function prose(text: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** A fenced code block: its language, its text, and the line of the markdown its text starts on (1-based). */
export interface CodeBlock {
  readonly language: string;
  readonly code: string;
  readonly line: number;
}

/** Every fenced code block of `text`, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { fence: string; language: string; line: number; lines: string[] } | undefined;
  for (const [index, line] of text.split('\n').entries()) {
    const marker = /^\s*(```+|~~~+)\s*(\S*)/.exec(line);
    if (open === undefined) {
      if (marker?.[1] !== undefined) {
        open = { fence: marker[1][0] ?? '`', language: marker[2] ?? '', line: index + 2, lines: [] };
      }
    } else if (marker?.[1]?.[0] === open.fence && marker[2] === '') {
      blocks.push({ language: open.language, code: open.lines.join('\n'), line: open.line });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  return blocks;
}
