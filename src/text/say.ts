import type { SafeText } from './safe-text.js';
import { vouched } from './safe-text.js';
import { forTerminal } from './sanitize.js';

/** What {@link say} takes between its literal parts. */
export type Said = string | number | bigint | boolean;

/**
 * A message of mcpx's own with values in it, fit for a terminal: every value is
 * sanitised (`forTerminal`; one already made safe comes out the same), and so
 * are the literal parts, so not even mcpx's own words carry a control sequence
 * past the funnel (a redraw is {@link redrawLine}'s).
 *
 * @example say`listing ${server} failed: ${reason}\n`
 */
export function say(literals: TemplateStringsArray, ...values: readonly Said[]): SafeText {
  let text: string = forTerminal(literals[0] ?? '');
  for (const [i, value] of values.entries()) {
    text += forTerminal(String(value)) + forTerminal(literals[i + 1] ?? '');
  }
  return vouched(text);
}

/** mcpx's one control sequence: back to the line's start and erase it (ESC [ 2 K). */
const REDRAW = '\r\u001b[2K';

/**
 * mcpx's own drawing, the only control sequence it writes: the status line
 * (a progress bar, a notice in its place) erased and `line` drawn there;
 * `redrawLine()` only erases it.
 */
export function redrawLine(line: SafeText = vouched('')): SafeText {
  return vouched(`${REDRAW}${line}`);
}

/**
 * Text that already passed an mcpx funnel in another process (the keep-alive
 * daemon's output for a light caller, over its owner-only socket), sanitised
 * again with mcpx's own redraw kept: the relay adds no control sequence, and a
 * status line the daemon draws still redraws here.
 */
export function relayed(text: string): SafeText {
  return vouched(text.split(REDRAW).map(forTerminal).join(REDRAW));
}
