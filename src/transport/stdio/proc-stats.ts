import { readdirSync, readFileSync } from 'node:fs';

/** The fields of a `/proc/<pid>/stat` line that mcpx reads. */
export interface ProcStat {
  /** R, S, D, Z (zombie), X (dead), … */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

/**
 * Every process `/proc` shows (Linux), read lazily so a caller can stop at
 * the first match; `undefined` where `/proc` cannot be read. A process that
 * ends while it is read is skipped.
 */
export function procStats(): Iterable<ProcStat> | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  return (function* () {
    for (const entry of entries) {
      if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      } catch {
        continue;
      }
      // Fields after the parenthesised command (which may itself hold spaces and parentheses).
      const [state = '', ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3);
      yield { state, ppid: Number(ppid), pgrp: Number(pgrp) };
    }
  })();
}
