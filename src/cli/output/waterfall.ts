/**
 * `mcpx doctor --trace`: each server's spans as a waterfall in the terminal, one line each,
 * indented under its parent, with its offset, a bar where it ran and its duration.
 */

import { forTerminal } from '../../text/index.js';
import type { WaterfallSpan } from '../../tracing/index.js';

export { serverWaterfall, type WaterfallSpan } from '../../tracing/index.js';

const BAR_CELLS = 30;

const round = (n: number) => Math.round(n * 10) / 10;

/** The waterfall as text lines: `  name   +start  [   ████   ]  duration`. */
export function renderWaterfall(server: string, rows: readonly WaterfallSpan[]): string {
  if (rows.length === 0) return `${forTerminal(server)}: no spans\n`;
  const total = Math.max(...rows.map((r) => r.startMs + r.durationMs), 0.1);
  const labels = rows.map((r) => `${'  '.repeat(r.depth + 1)}${forTerminal(r.name)}`);
  const width = Math.max(...labels.map((l) => l.length));
  const lines = rows.map((row, i) => {
    const from = Math.min(BAR_CELLS - 1, Math.floor((row.startMs / total) * BAR_CELLS));
    const cells = Math.max(1, Math.round((row.durationMs / total) * BAR_CELLS));
    const bar = ' '.repeat(from) + '█'.repeat(Math.min(cells, BAR_CELLS - from));
    const failed = row.error ? `  ${forTerminal(row.error)}` : '';
    return `${(labels[i] as string).padEnd(width)}  ${`+${row.startMs}`.padStart(8)} ms  |${bar.padEnd(BAR_CELLS)}|  ${String(row.durationMs).padStart(7)} ms${failed}`;
  });
  return `${forTerminal(server)} (${round(total)} ms)\n${lines.join('\n')}\n`;
}
