import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Call `onChange` when one of `files` changes. The folders are watched, not the
 * files, since editors save by writing a new file and renaming it over the old
 * one; a burst of events is one change. Returns the stop.
 */
export function watchConfigFiles(files: readonly string[], onChange: () => void): () => void {
  const byFolder = new Map<string, Set<string>>();
  for (const file of files) {
    const names = byFolder.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    byFolder.set(dirname(file), names);
  }
  let timer: NodeJS.Timeout | undefined;
  const watchers = [...byFolder].flatMap(([folder, names]) => {
    try {
      return [
        watch(folder, { persistent: false }, (_event, name) => {
          if (name !== null && !names.has(name.toString())) return;
          clearTimeout(timer);
          timer = setTimeout(onChange, 200);
        }),
      ];
    } catch {
      return []; // a folder that cannot be watched still reloads on request (SIGHUP)
    }
  });
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
