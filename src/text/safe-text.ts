declare const safe: unique symbol;

/**
 * Text fit for a person's terminal: no control or escape sequence it did not
 * get from mcpx's own drawing, every invisible or reordering character shown
 * as `<U+XXXX>`. The CLI's writers (`CliIo.stdout`, `CliIo.stderr`), the
 * prompts and the shell's line editor take nothing else, and only this
 * folder makes it: `forTerminal` (server text), `say` (mcpx's own messages with
 * values in them), `jsonText` (JSON, escaped) and `redrawLine` (mcpx's one
 * control sequence). `npm run check` refuses an `as SafeText` anywhere else
 * (scripts/check-terminal-writes.mjs).
 */
export type SafeText = string & { readonly [safe]: true };

/**
 * The one cast to {@link SafeText}, for this folder's makers only (`text/index.ts`
 * does not export it): each caller has just made `text` safe.
 */
export function vouched(text: string): SafeText {
  return text as SafeText;
}
