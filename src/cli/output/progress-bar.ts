import type { ProgressEvent } from '../../host/index.js';
import { forTerminal, redrawLine, type SafeText, say, stripTerminalControls } from '../../text/index.js';

/**
 * A one-line progress bar on a terminal's stderr, redrawn in place. With no
 * `total` it shows a counter instead of a bar.
 */
export function createProgressBar(write: (chunk: SafeText) => void, width = 30) {
  let drawn = false;
  return {
    update(event: ProgressEvent): void {
      // Cut by code points (never half a surrogate pair), then reveal what is hidden.
      const message = event.message
        ? ` ${forTerminal([...stripTerminalControls(event.message)].slice(0, 60).join(''))}`
        : '';
      let line: SafeText;
      if (event.total && event.total > 0) {
        const ratio = Math.max(0, Math.min(1, event.progress / event.total));
        const filled = Math.round(ratio * width);
        line = say`[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${Math.round(ratio * 100)}%${message}`;
      } else {
        line = say`progress ${event.progress}${message}`;
      }
      write(redrawLine(line));
      drawn = true;
    },
    /** A status line in the bar's place (a task's state), sanitized and cut to the width. */
    status(text: string): void {
      write(redrawLine(forTerminal([...stripTerminalControls(text)].slice(0, 120).join(''))));
      drawn = true;
    },
    clear(): void {
      if (drawn) write(redrawLine());
      drawn = false;
    },
  };
}
