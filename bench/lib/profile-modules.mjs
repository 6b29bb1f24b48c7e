// Which source module a V8 CPU profile's sample ran in. mcpx's bundle puts many modules in one
// chunk; rolldown marks where each starts with a `// <path>` line, so a sample's line in a chunk
// names the module (mcpx's own `dist/...`, the SDK's, zod's) it belongs to. Shared by
// profile-summary.mjs and profile-compare.mjs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MARKER = /^\/\/ (\.\.\/|dist\/|src\/|node_modules\/)\S+\.m?js$/;

/**
 * `(url, line) => module`: the module starting at or before `line` of the bundled file `url`
 * (its markers read once per file); for a file without markers, `fileName(url)`, and for a
 * native frame (no url) a fixed label. `pathOf` maps a profile's file to where it is read now
 * (a rebuild may have replaced it); `markerName` shapes a marker's path.
 */
export function moduleLocator({ pathOf = fileURLToPath, markerName = (path) => path, fileName }) {
  const markers = new Map();
  const modulesOf = (url) => {
    if (markers.has(url)) return markers.get(url);
    let found = [];
    if (url.startsWith('file://')) {
      try {
        found = readFileSync(pathOf(url), 'utf8')
          .split('\n')
          .map((text, line) => ({ line, text }))
          .filter(({ text }) => MARKER.test(text))
          .map(({ line, text }) => ({ line, module: markerName(text.slice(3)) }));
      } catch {}
    }
    markers.set(url, found);
    return found;
  };
  return (url, line) => {
    let module;
    for (const m of modulesOf(url)) {
      if (m.line > line) break;
      module = m.module;
    }
    if (module) return module;
    if (!url) return '(native: V8, GC, system calls)';
    return fileName(url);
  };
}
