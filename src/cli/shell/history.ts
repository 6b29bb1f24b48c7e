import type { HomeFiles } from '../../home/index.js';

/** The file under the mcpx home that keeps the console's lines between sessions. */
export const HISTORY_FILE = 'history';

/** Lines kept; older ones fall off. */
export const HISTORY_LIMIT = 1000;

/** The console's line history: newest first, as Node's readline wants it. */
export interface ShellHistory {
  /** A copy of the lines, newest first. */
  lines(): string[];
  /** Remember a line (a repeat of the last one is kept once) and save the file. */
  add(line: string): Promise<void>;
}

/**
 * Load `~/.mcpx/history` (oldest line first in the file, one per line) through
 * the home's safe files, so it is written 0600 and a planted link is refused.
 * A history that cannot be saved costs the history, not the session: `onError`
 * hears about it once.
 */
export async function loadHistory(
  home: HomeFiles,
  onError: (error: unknown) => void,
  limit = HISTORY_LIMIT,
): Promise<ShellHistory> {
  let lines: string[] = [];
  try {
    const text = await home.readText(HISTORY_FILE);
    lines = (text ?? '')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .reverse()
      .slice(0, limit);
  } catch (error) {
    onError(error);
  }
  let failed = false;
  // Saves run one after another so a slow one never overwrites a newer one.
  let saving: Promise<void> = Promise.resolve();
  return {
    lines: () => [...lines],
    add(line) {
      // A line with a newline would come back as two; a blank one is nothing to recall.
      const entry = line.replace(/[\r\n]+/g, ' ').trim();
      if (entry === '' || lines[0] === entry) return saving;
      lines.unshift(entry);
      lines.length = Math.min(lines.length, limit);
      // Onto the file as it is now, under its lock: two consoles open at once both keep their lines.
      const append = (text: string | undefined) => {
        const kept = (text ?? '').split('\n').filter((l) => l.trim() !== '');
        if (kept.at(-1) !== entry) kept.push(entry);
        return `${kept.slice(-limit).join('\n')}\n`;
      };
      saving = saving.then(() =>
        home.update(HISTORY_FILE, append).then(
          () => {},
          (error: unknown) => {
            if (!failed) onError(error);
            failed = true;
          },
        ),
      );
      return saving;
    },
  };
}
