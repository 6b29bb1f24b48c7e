// Where a V8 CPU profile's time went: self time by function and by source module, the top N of
// each. `node bench/lib/profile-summary.mjs FILE.cpuprofile [N]`. mcpx's bundle puts many modules
// in one chunk; rolldown marks where each starts with a `// <path>` line, so a sample's line in a
// chunk names the module (mcpx's own `dist/...`, the SDK's, zod's) it belongs to.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { moduleLocator } from './profile-modules.mjs';

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// `PROFILE_REMAP=FROM=TO`: the bundle the profile ran now lives elsewhere (a rebuild replaced it).
const [from, to] = (process.env.PROFILE_REMAP ?? '=').split('=');
const moduleAt = moduleLocator({
  pathOf: (url) => (from ? fileURLToPath(url).replace(from, to) : fileURLToPath(url)),
  markerName: (path) => path.replace(/^(\.\.\/)*main\//, ''),
  fileName: (url) => url.replace(/^file:\/\/.*\/(dist|node_modules)\//, '$1/'),
});

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++)
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (deltas[i] ?? 0));

const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
const byFunction = new Map();
const byModule = new Map();
let idle = 0;
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const name = callFrame.functionName || '(anonymous)';
  if (name === '(idle)') {
    idle += us;
    continue;
  }
  const module = moduleAt(callFrame.url, callFrame.lineNumber);
  add(byFunction, `${name}  ${module}:${callFrame.lineNumber + 1}`, us);
  add(byModule, module, us);
}
const busy = total - idle;
const print = (title, map) => {
  console.log(`\n${title} (self time, % of busy ${(busy / 1000).toFixed(0)} ms)`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`);
};
print('by function', byFunction);
print('by module', byModule);

// `PROFILE_CALLERS=name`: the call paths (4 frames up) that lead to that function's self time.
const wanted = process.env.PROFILE_CALLERS;
if (wanted) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const paths = new Map();
  for (const [id, us] of selfUs) {
    if (byId.get(id).callFrame.functionName !== wanted) continue;
    const chain = [];
    for (let p = parent.get(id); p !== undefined && chain.length < 12; p = parent.get(p)) {
      const f = byId.get(p).callFrame;
      chain.push(`${f.functionName || '(anonymous)'}@${moduleAt(f.url, f.lineNumber).split('/').pop()}`);
    }
    add(paths, chain.join(' < '), us);
  }
  console.log(`\ncallers of ${wanted}`);
  for (const [key, us] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`);
}

// `PROFILE_TOTAL=a,b`: inclusive time (self + everything it called) of functions by name.
const totals = process.env.PROFILE_TOTAL?.split(',');
if (totals) {
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const inclusive = new Map();
  for (const [id, us] of selfUs) {
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    const seen = new Set();
    for (let p = id; p !== undefined; p = parentOf.get(p)) {
      const name = byId.get(p).callFrame.functionName;
      if (totals.includes(name)) seen.add(name);
    }
    for (const name of seen) add(inclusive, name, us);
  }
  console.log('\ninclusive');
  for (const name of totals)
    console.log(`${((100 * (inclusive.get(name) ?? 0)) / busy).toFixed(1).padStart(5)}%  ${name}`);
}

// `PROFILE_OWNERS=1`: busy time by who asked for it. Each sample goes to the nearest frame on its
// stack that is mcpx's own (`dist/`), the SDK's client package (the upstream hop) or its server
// package (the downstream hop); zod, Node's internals and V8 builtins count for whoever called
// them. Pipe writes and garbage collection are shown apart (no JS frame owns GC).
if (process.env.PROFILE_OWNERS) {
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const ownerOf = (module) =>
    module.startsWith('dist/transport/')
      ? 'mcpx transports (framing, JSON parse and stringify, both hops)'
      : module.startsWith('dist/')
        ? 'mcpx (gateway, registry, connection)'
        : module.includes('@modelcontextprotocol/client/')
          ? 'SDK client (upstream hop)'
          : module.includes('@modelcontextprotocol/server/')
            ? 'SDK server (downstream hop)'
            : undefined;
  const owners = new Map();
  const ownedBy = new Map();
  for (const [id, us] of selfUs) {
    const leaf = byId.get(id).callFrame;
    if (leaf.functionName === '(idle)') continue;
    if (leaf.functionName === '(garbage collector)') {
      add(owners, 'garbage collection', us);
      continue;
    }
    if (leaf.functionName === 'writeUtf8String') {
      add(owners, 'pipe writes (system calls)', us);
      continue;
    }
    let owner;
    for (let p = id; p !== undefined && !owner; p = parentOf.get(p)) {
      const f = byId.get(p).callFrame;
      owner = ownerOf(moduleAt(f.url, f.lineNumber));
    }
    add(owners, owner ?? 'Node and V8 (no JS owner: event loop, stream reads, startup)', us);
    if (owner === process.env.PROFILE_OWNERS)
      add(ownedBy, `${leaf.functionName || '(anonymous)'} ${moduleAt(leaf.url, leaf.lineNumber)}`, us);
  }
  console.log('\nby owner');
  for (const [k, us] of [...owners].sort((a, b) => b[1] - a[1]))
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${k}`);
  // `PROFILE_OWNERS=<an owner above>`: that owner's time by the function that spent it.
  if (ownedBy.size > 0) console.log(`\n${process.env.PROFILE_OWNERS}, by leaf function`);
  for (const [k, us] of [...ownedBy].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${k}`);
}
