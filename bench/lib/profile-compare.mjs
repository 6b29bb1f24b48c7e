// Two builds' V8 CPU profiles side by side, per call: `node bench/lib/profile-compare.mjs DIR_A DIR_B [N]`.
// Each DIR holds `node --cpu-prof` profiles of the same command (one per run); each table gives the
// mean per profile in A, in B and B − A, largest differences first. Self time by source module (the
// bundle's `// <module>` markers, as in profile-summary.mjs, with the path up to `node_modules/` or
// `dist/` dropped, so two builds' copies of a module line up) and inclusive time by function (its
// name and chunk, the chunk's hash dropped; `PROFILE_FILTER=regex` keeps the matching rows). A
// build's module renamed or split shows as one row gone and one new: read both tables together.
import { readdirSync, readFileSync } from 'node:fs';
import { moduleLocator } from './profile-modules.mjs';

const [dirA, dirB, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 30);
const filter = new RegExp(process.env.PROFILE_FILTER ?? '.');
const unhashed = (url) =>
  url
    .split('/')
    .pop()
    .replace(/-[A-Za-z0-9_-]{8}\.(c?js)$/, '.$1');

const moduleAt = moduleLocator({
  markerName: (path) => path.replace(/^.*?(?=node_modules\/|dist\/)/, ''),
  fileName: (url) =>
    url.replace(/^file:\/\/.*\/(dist|node_modules)\//, '$1/').replace(/-[A-Za-z0-9_-]{8}\.(c?js)$/, '.$1'),
});

/** Per-profile mean self time by module and inclusive time by function, in ms. */
const load = (dir) => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const self = new Map();
  const inclusive = new Map();
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us / 1000 / files.length);
  let busy = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    profile.samples.forEach((id, i) => {
      const us = profile.timeDeltas[i] ?? 0;
      const { callFrame } = byId.get(id);
      if (callFrame.functionName === '(idle)') return;
      busy += us / 1000 / files.length;
      add(self, moduleAt(callFrame.url, callFrame.lineNumber), us);
      const seen = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at).callFrame;
        const key = `${frame.functionName || '(anonymous)'}  ${unhashed(frame.url) || '(native)'}`;
        if (!seen.has(key)) add(inclusive, key, us);
        seen.add(key);
      }
    });
  }
  return { runs: files.length, busy, self, inclusive };
};

const a = load(dirA);
const b = load(dirB);
console.log(`A ${dirA}: ${a.runs} profiles, ${a.busy.toFixed(1)} ms busy per run`);
console.log(
  `B ${dirB}: ${b.runs} profiles, ${b.busy.toFixed(1)} ms busy per run (B − A ${(b.busy - a.busy).toFixed(1)})`,
);
const compare = (title, ma, mb) => {
  const rows = [...new Set([...ma.keys(), ...mb.keys()])]
    .filter((key) => filter.test(key))
    .map((key) => [key, ma.get(key) ?? 0, mb.get(key) ?? 0])
    .sort((p, q) => Math.abs(q[2] - q[1]) - Math.abs(p[2] - p[1]));
  console.log(`\n${title} (ms per run: A, B, B − A)`);
  for (const [key, x, y] of rows.slice(0, top))
    console.log(
      `${x.toFixed(2).padStart(7)} ${y.toFixed(2).padStart(7)} ${(y - x).toFixed(2).padStart(7)}  ${key}`,
    );
};
compare('self time by module', a.self, b.self);
compare('inclusive time by function', a.inclusive, b.inclusive);
