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
