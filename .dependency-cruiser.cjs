// The layer rule: which folder of src/ may import which. `npm run check` runs it
// (`npm run layers` alone); test/unit/layer-rule.test.ts shows each rule catches
// a planted violation.
//
// A layer may import only the layers below it. Folders in one layer are
// siblings and may not import each other. Type-only imports count for the
// layers: a type is as much a dependency on a folder's concepts as a value is.
// They do not count for the index.ts rules below, which are about what a
// module loads: a type-only import is erased and loads nothing.

/** Bottom to top. Each member is a pattern after `src/`: a folder ('name/') or root files ('…\\.ts$'). */
const LAYERS = [
  // Pure leaves: the one error model, text made fit for a terminal, the version string.
  { name: 'base', members: ['errors/', 'text/', 'version\\.ts$'] },
  // OpenTelemetry spans and the W3C trace context in `_meta`: the client, the gateway, the
  // daemon and the agent all make spans, so it sits just above the leaves.
  { name: 'tracing', members: ['tracing/'] },
  // mcpx's own files under ~/.mcpx (trust store, era cache, tokens, run/).
  { name: 'home', members: ['home/'] },
  // The audit log of tool calls: its records (which the permission engine's decisions fill in)
  // and its sinks, the owner-only file under the home among them.
  { name: 'audit', members: ['audit/'] },
  // A config is loaded (with other client apps' dialects in config/client-apps/); `mcpx exec`'s hand-over file.
  { name: 'config', members: ['config/', 'handover/'] },
  { name: 'transport', members: ['transport/'] },
  { name: 'auth', members: ['auth/'] },
  { name: 'client', members: ['client/'] },
  { name: 'registry', members: ['registry/'] },
  { name: 'permissions', members: ['permissions/'] },
  // Skills (SEP-2640) under the host rules, over the registry's connections: above the
  // permissions (an approval refers to a manifest's fingerprint), below the tools and the agent,
  // which will offer skills to a model.
  { name: 'skills', members: ['skills/'] },
  { name: 'tools', members: ['tools/'] },
  { name: 'agent', members: ['agent/'] },
  // What the serving processes count (the gateway and the daemon record into it; its
  // OpenTelemetry SDK is loaded only by the front end that starts one, lazily).
  { name: 'metrics', members: ['metrics/'] },
  // The keep-alive daemon's callers' side: where its socket is and whether it is safe to dial,
  // the socket client and transport, the wire formats, and the route the host's connector is
  // decorated with (daemon-client/route.ts). It sits below the host, which imports its route;
  // the daemon's own server (daemon/, above) reads the wire formats from it.
  { name: 'daemon-client', members: ['daemon-client/'] },
  // The one composition root: config → trust → servers → policy → catalogue → features.
  { name: 'host', members: ['host/'] },
  // Typed code from a server's tools (`mcpx generate`, issue 45): the generator and the runtime
  // its modules call (`boundTools`), which stands on the host as a program does. Nothing below
  // imports it; the CLI's command and the library's entry do.
  { name: 'codegen', members: ['codegen/'] },
  // The servers a front end starts (`mcpx serve`, the keep-alive daemon, both run from cli/), not
  // front ends themselves. Each stands on the host's layers, and the host imports neither. The
  // daemon's instance pool serves through the gateway's GatewayCore, so the daemon sits above
  // the gateway rather than beside it (siblings may not import each other).
  { name: 'gateway', members: ['gateway/'] },
  { name: 'daemon', members: ['daemon/'] },
  // The local console (`mcpx console`): a page on loopback over one host, run from cli/ as the
  // gateway is. Above the gateway and the daemon, so that showing a running `mcpx serve` or the
  // daemon's sessions (issue 41) may read their wires; neither imports it.
  { name: 'console', members: ['console/'] },
  // The front doors, which never import each other: the CLI (with its console in cli/shell/),
  // the shipped test servers (programs of their own), and the library's entry files at src/.
  { name: 'front', members: ['cli/', 'testing/', '(?!version\\.ts$)[^/]+\\.ts$'] },
];

/**
 * Cross-folder imports that may reach past the folder's index.ts, each for a reason: who imports
 * the module with a value, and what the folder's index.ts would load besides (its static imports,
 * as the layer check's own module graph shows them). Type-only imports need no entry. Keep it
 * short: anything else goes through index.ts (or is in the baseline, the list of what is left).
 */
const DEEP_IMPORTS_ALLOWED = [
  // What a command needs of the config at its start (load, trust check, profile, suggestions),
  // for the host, the registry and the call's own modules: config/index.ts would add the config
  // editing with jsonc-parser's editor, the trust review, the ad-hoc servers and the file cache to
  // the chunk every cold `mcpx call` reads and compiles.
  'config/loading.ts',
  // The stdio transport's framing check, and the host's door to it for cli/: the thin serve's
  // bridge (bundled into the light mcpx.cjs) checks a client line as the daemon's transport will,
  // without the transport's or the host's index, which would load the SDK into the light side.
  'transport/stdio/json-rpc-frame.ts',
  'host/json-rpc-frame.ts',
  // Where the config files and the home are, and nothing else: the light caller (bundled into
  // mcpx.cjs, which answers a warm daemon call without the ES module side) names the daemon's
  // socket by the files' paths, and the compile cache (the ES module side's first chunk, turned
  // on before the rest of the CLI compiles) finds the home. config/index.ts would load the whole
  // loader with it: parsing, interpolation, trust, editing, and jsonc-parser.
  'config/load/discover.ts',
  // Other client apps' dialects (nine of them and a TOML parser), kept off config/index.ts so that
  // loading a config loads none of them until a file imports a client app.
  'config/client-apps/index.ts',
  // `mcpx config import`'s finder and planner, kept off config/client-apps/index.ts, which the library
  // and `mcpx exec` load for the dialects alone.
  'config/client-apps/import.ts',
  // The chat agent (agent/agent-loop.ts) speaks the OpenAI format. The provider adapters are
  // package entries of their own (mcpx/openai, mcpx/anthropic, mcpx/ai-sdk), kept off
  // tools/index.ts, which `import 'mcpx'` loads, so that a program pays only for the one it uses.
  'tools/providers/openai.ts',
  // The one catalogue, for `mcpx call`'s lookup (cli/commands/call.ts): tools/index.ts would
  // load the agent tools, the router, argument validation, the registry and client/index.ts
  // into every cold `mcpx call`.
  'tools/catalogue.ts',
  // Roots, sampling and elicitation handlers: host/index.ts hands them to the front ends
  // (createRoots, rootsForDirectories, samplingRefused), and daemon-client/caller-offer.ts, which
  // every command loads through daemon-client/route.ts, tells a held server what its caller can
  // answer (capabilitiesFor). client/index.ts loads no SDK, but would add connect.ts, era-cache.ts,
  // locate.ts, throttle.ts and call-cancel.ts to every cold command (the host imports the era
  // cache with `await import`, host/host.ts).
  'client/features.ts',
  // The keep-alive route the host's connector is decorated with (host/host.ts), loaded by every
  // command at its start: daemon-client/index.ts would add the socket client and the socket
  // transport, and with it the SDK's client package, before the early spawn (the route loads them
  // with `await import` only when a call goes to the daemon).
  'daemon-client/route.ts',
  // The one connector (host/connector.ts) builds a server's transport and spawns it before the
  // protocol stack loads. client/index.ts loads no SDK either, but would add connect.ts,
  // era-cache.ts, locate.ts, throttle.ts and call-cancel.ts to every cold command.
  'client/transport-factory.ts',
  // What the light caller and the thin serve need of the daemon (paths, socket check, the run and
  // gateway wires): they are bundled into mcpx.cjs, and daemon-client/index.ts would bring the
  // socket transport with the SDK's client package, the error model and the home into it.
  'daemon-client/light.ts',
  // What the HTTP test server and the conformance backend (testing/) share with the gateway's
  // server side: gateway/index.ts would load the gateway's core (registry, permissions, tools,
  // config) and the SDK's client into their start.
  'gateway/server-kit.ts',
  // `mcpx serve` checks its state key's length (cli/serve/state-key.ts) before it loads the gateway:
  // gateway/index.ts would load the gateway and the SDK at the command's start, before its usage
  // errors.
  'gateway/sealed-state.ts',
  // Whether tracing is switched on, for the light caller and the thin serve (bundled into
  // mcpx.cjs): a traced command is not handed to the daemon. tracing/index.ts would bring the
  // OpenTelemetry API and semantic conventions into it.
  'tracing/switch.ts',
  // Whether a span could record, told from OpenTelemetry's global object without loading its API
  // (the host's connector, the handshake and the wire's request tracing): tracing/index.ts is that
  // API, which an untraced call never reads. It loads the index itself when a span could record.
  'tracing/presence.ts',
  // The funnel's writers the light caller and the process's io need (bundled into mcpx.cjs): the
  // daemon's text relayed safe, and the opaque terminal. text/index.ts would bring the prompts,
  // the line editor and the content renderer into it.
  'text/say.ts',
  'text/terminal.ts',
];

/**
 * Modules that may be reached past index.ts by a lazy `await import(…)` only: a static import
 * goes through index.ts like any other (a type-only one, which loads nothing, needs neither).
 */
const LAZY_IMPORTS_ALLOWED = [
  // The trust review's text, loaded by the host (host/servers.ts) only when it has a project
  // entry to put to someone: a command whose servers are all trusted never loads it.
  'config/trust/trust-review.ts',
  // After the early spawn, so a cold `mcpx call` starts the server before it loads the protocol
  // stack (rolldown.config.mjs's chunk groups name these modules).
  'client/server-connection.ts',
  // The era cache, opened by the host's connector when it first connects a server (host/host.ts).
  // The bundle puts it in the chunk every command loads at its start (rolldown.config.mjs's
  // GROUPED_ON_PURPOSE); the library used unbundled loads it with the first connection.
  'client/era-cache.ts',
  // The HTTP stack, loaded only when a server is remote (transport/index.ts is stdio's).
  'transport/http/index.ts',
  // The permission engine and the agent tools, loaded when a front end first asks the host for
  // its guard or its agent tools (a person's own `mcpx call` needs neither).
  'permissions/guard.ts',
  'permissions/approver.ts',
  'tools/agent-tools.ts',
  // The OpenTelemetry SDK and the OTLP exporter, loaded only when tracing is switched on.
  'tracing/start.ts',
];

/**
 * Modules that are themselves loaded only by a lazy `await import(…)`, so they may import a
 * LAZY_IMPORTS_ALLOWED module statically; the lazy-only rule keeps every import of them lazy
 * (or type-only).
 */
const LOADED_LAZILY = [
  // The OAuth sign-in (auth/sign-in.ts loads it on first use) dials through the HTTP stack.
  'auth/sign-in-flow.ts',
  // The device sign-in (auth/device-sign-in.ts loads it on first use) too.
  'auth/device-flow.ts',
];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (members) => `^src/(${members.join('|')})`;
const allMembers = LAYERS.flatMap((layer) => layer.members);
const exactly = (paths) => paths.map((path) => `^src/${escapeRegExp(path)}$`);
const allowedDeep = exactly(DEEP_IMPORTS_ALLOWED);
const allowedLazy = exactly(LAZY_IMPORTS_ALLOWED);
const loadedLazily = exactly(LOADED_LAZILY);

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: 'no-upward-import',
  comment:
    `${layer.name} may import only the layers below it, not ${LAYERS.slice(i + 1)
      .map((l) => l.name)
      .join(', ')}: move the code to the layer that owns it, or pass it in from above ` +
    '(LAYERS in .dependency-cruiser.cjs is the order)',
  severity: 'error',
  from: { path: anyOf(layer.members) },
  to: { path: anyOf(LAYERS.slice(i + 1).flatMap((l) => l.members)) },
}));

const sideways = LAYERS.filter((layer) => layer.members.length > 1).map((layer) => ({
  name: 'no-sibling-import',
  comment: `the folders of the ${layer.name} layer (${layer.members.join(', ')}) do not import each other: move what both need into a layer below`,
  severity: 'error',
  from: { path: anyOf(layer.members) },
  // $1 is the importing member, as matched: a module may of course import its own folder.
  to: { path: anyOf(layer.members), pathNot: '^src/$1' },
}));

const throughIndexComment =
  "import another folder's modules from its index.ts (export them there), or add the module to " +
  'DEEP_IMPORTS_ALLOWED (or LAZY_IMPORTS_ALLOWED) in .dependency-cruiser.cjs with the reason';
// Two kinds of importer: a module in a folder (which may of course reach into its own folder,
// $1), and the library's entry files at the root of src/.
const importers = [
  { from: { path: '^src/([^/]+)/' }, own: ['^src/$1/'] },
  { from: { path: '^src/[^/]+\\.ts$' }, own: [] },
];
const throughIndex = importers.flatMap(({ from, own }) => [
  {
    name: 'not-through-index',
    comment: throughIndexComment,
    severity: 'error',
    from,
    to: {
      path: '^src/[^/]+/',
      pathNot: [...own, '^src/[^/]+/index\\.ts$', ...allowedDeep, ...allowedLazy],
      dependencyTypesNot: ['type-only'],
    },
  },
  {
    name: 'not-through-index',
    comment: `${throughIndexComment} (this module is allowed past index.ts by a lazy \`await import\` only)`,
    severity: 'error',
    from: { ...from, pathNot: loadedLazily },
    to: {
      path: allowedLazy,
      ...(own.length ? { pathNot: own } : {}),
      dynamic: false,
      dependencyTypesNot: ['type-only'],
    },
  },
]);

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment:
        'folders of src/ form a hierarchy: no two of them import each other, even through others; ' +
        'cut the import that runs up (the no-upward-import errors name it)',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { path: '^src/', circular: true },
    },
    {
      name: 'no-config-cycle',
      comment:
        "config/'s modules import one another one way only, from its vocabulary (types.ts) up through " +
        'its steps (parse, entry, resolve, file, trust, client-apps, load, edit): move the shared piece ' +
        'down to the module or types.ts both can import',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/config/', circular: true },
    },
    {
      name: 'config-types-alone',
      comment:
        'config/types.ts is the vocabulary every step of config/ shares: it imports nothing of its folder ' +
        '(a type that needs a module of config/ lives beside that module, as LoadConfigOptions does in load/options.ts)',
      severity: 'error',
      from: { path: '^src/config/types\\.ts$' },
      to: { path: '^src/config/' },
    },
    ...upward,
    ...sideways,
    {
      name: 'no-import-of-cli',
      comment:
        'cli/ is a front end: nothing outside it imports it (the library never prints); ' +
        'move what the library needs out of cli/ into the layer that owns it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-through-host',
      comment:
        'cli/ reaches the protocol (client/) and the transports (transport/) only through the host: ' +
        'import it from host/index.ts (export it there if it is missing)',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(client|transport)/' },
    },
    {
      name: 'undeclared-folder',
      comment: 'every folder of src/ has a layer in .dependency-cruiser.cjs: add the new one there',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: anyOf(allMembers) },
      to: { pathNot: '^src/$1/' },
    },
    {
      name: 'undeclared-folder',
      comment: 'every folder of src/ has a layer in .dependency-cruiser.cjs: add the new one there',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: anyOf(allMembers) },
    },
    ...throughIndex,
    {
      name: 'lazy-only',
      comment:
        'this module is loaded only by a lazy `await import(…)` (LOADED_LAZILY in .dependency-cruiser.cjs), ' +
        'which lets it import the lazily loaded stacks statically: import it with `await import` too',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: loadedLazily, dynamic: false, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    // `import type` counts (see the top of this file).
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
