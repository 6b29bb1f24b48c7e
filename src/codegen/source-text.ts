import { revealHidden, stripTerminalControls } from '../text/index.js';

/**
 * A TypeScript string literal holding `value` exactly, in ASCII: JSON's escaping, and every
 * character past `~` written `\uXXXX`. A server's name cannot leave its literal, no line
 * separator or bidirectional control hides in the source, and the file shows the same on any
 * terminal or editor.
 */
export function stringLiteral(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Text a server wrote, made fit for a doc comment: escape sequences and controls dropped,
 * hidden characters shown as `<U+XXXX>` (as on a terminal), every line break one `\n`, and no
 * way to end the comment (`*\/` is written `*\\/`, which reads the same in an editor's hover).
 */
export function commentText(text: string): string {
  return revealHidden(stripTerminalControls(text.replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')))
    .replace(/\*\//g, '*\\/')
    .trim();
}

/**
 * A doc comment of `lines` (each a paragraph, made fit by {@link commentText}) at `indent`;
 * the empty string when there is nothing to say.
 */
export function docComment(lines: readonly (string | undefined)[], indent = ''): string {
  const body = lines
    .filter((line): line is string => line !== undefined && line.trim() !== '')
    .flatMap((line) => commentText(line).split('\n'));
  if (body.length === 0) return '';
  return `${indent}/**\n${body.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}
