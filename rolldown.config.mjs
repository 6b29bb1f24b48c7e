import { fileURLToPath } from 'node:url';

// Two builds into dist/bin, the second after the first (it empties the folder), and a third for the browser:
//
// 1. The CLI's ES module side and the library's entry points: each entry plus
//    lazily loaded chunks (one per command, the protocol stack, the HTTP stack),
//    shared between the command and the library, so the package holds one copy
//    of every module. Loading a few large files is much faster than resolving
//    hundreds of small ones at every start (the SDK alone is ~100 files of it and
//    zod); see bench/README.md for the figures.
// 2. The `mcpx` command's entry, `mcpx.cjs`: CommonJS, one file holding the
//    version answer, the process's io and the light caller. A warm daemon call
//    runs it alone, without Node's ES module loader; every other command imports
//    the ES module side (`cli.js`) from it.
//
// Types stay as tsc emits them (dist/**/*.d.ts).
/**
 * Modules the chunk groups below put in the chunk every command loads at its start, which the
 * host also imports lazily (for the protocol stack's load order when the library is used
 * unbundled): rolldown rightly says that in the bundle those dynamic imports move nothing. The
 * layout is deliberate (fewer, larger chunks: see the groups), so that notice is expected for
 * these modules; any other ineffective dynamic import is still reported.
 */
const GROUPED_ON_PURPOSE = /[\\/]dist[\\/](client[\\/]era-cache|registry[\\/]index|tools[\\/]catalogue)\.js$/;

/** Rolldown's logs, minus the expected notice above. */
function onLog(level, log, handler) {
  if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' && GROUPED_ON_PURPOSE.test(log.id ?? '')) return;
  handler(level, log);
}

const modules = {
  input: {
    cli: 'dist/cli/cli-entry.js',
    index: 'dist/index.js',
    'low-level': 'dist/low-level.js',
    openai: 'dist/tools/providers/openai.js',
    anthropic: 'dist/tools/providers/anthropic.js',
    'ai-sdk': 'dist/tools/providers/ai-sdk.js',
  },
  platform: 'node',
  // The AI SDK is the user's own (an optional peer dependency): its `tool()` objects must be theirs.
  external: ['ai'],
  // jsonc-parser's `main` is a UMD build that cannot be bundled; its `module` is ESM.
  resolve: {
    mainFields: ['module', 'main'],
    // The SDK client's Node shim loads its ajv provider at start; ours loads it on the first
    // schema (src/client/sdk-shims.ts): a stdio call on tools without outputSchema never pays it.
    alias: {
      '@modelcontextprotocol/client/_shims': fileURLToPath(
        new URL('dist/client/sdk-shims.js', import.meta.url),
      ),
    },
  },
  logLevel: 'warn',
  onLog,
  output: {
    dir: 'dist/bin',
    // Chunk names carry content hashes: without this, every build would leave the old ones behind.
    cleanDir: true,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // No JSDoc in the chunks: it was over a quarter of what a cold call reads, and V8 scans every
    // character of it on each start (the types and docs ship as dist/**/*.d.ts). Licences stay.
    comments: { legal: true, annotation: false, jsdoc: false },
    // Without groups a cold `mcpx call` loads ~50 chunk files, each resolved, read and compiled on
    // its own: about a third of its CPU (bench/README.md). These groups make it four, each taking the
    // static imports of its roots with it. Higher priority wins a module both reach: the version
    // string stays alone, the compile cache comes with what it needs (the error classes, the
    // home's files) before anything else of the CLI, and the CLI's modules load before the spawn
    // while the SDK and the connection load after it, while the server boots.
    codeSplitting: {
      groups: [
        { name: 'version', test: /[\\/]dist[\\/]version\.js$/, priority: 4 },
        { name: 'boot', test: /[\\/]dist[\\/]cli[\\/]compile-cache\.js$/, priority: 3 },
        {
          name: 'cli',
          test: /[\\/]dist[\\/](cli[\\/](run|context[\\/]context|commands[\\/]call)|host[\\/][\w-]+|daemon-client[\\/]route|registry[\\/]index|client[\\/](connect|era-cache|features|transport-factory))\.js$/,
          priority: 2,
        },
        { name: 'connect', test: /[\\/]dist[\\/]client[\\/]server-connection\.js$/, priority: 1 },
      ],
    },
  },
};

const esmEntry = fileURLToPath(new URL('dist/bin/cli.js', import.meta.url));

/** The ES module side, imported by path from the CommonJS entry (never bundled into it). */
const esmSide = {
  name: 'mcpx-esm-side',
  resolveId(source) {
    // Absolute, so each chunk of this build imports it by its own relative path.
    if (/[\\/]cli-entry\.js$/.test(source)) return { id: esmEntry, external: true };
    return undefined;
  },
};

const entry = {
  input: { mcpx: 'dist/cli/main.js' },
  platform: 'node',
  plugins: [esmSide],
  logLevel: 'warn',
  output: {
    dir: 'dist/bin',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    // The entry alone answers --version; the light caller and the process's io (with the Node
    // modules they load) come in one chunk after it.
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    codeSplitting: { groups: [{ name: 'light', test: /[\\/]dist[\\/](?!version\.js$|cli[\\/]main\.js$)/ }] },
  },
};

/**
 * 3. The console's MCP Apps host for the browser (src/console/browser/app-host.js with the ext-apps
 *    AppBridge): one script the console serves from its own origin (its page allows no other).
 */
const appHost = {
  input: { 'app-host': 'src/console/browser/app-host.js' },
  platform: 'browser',
  logLevel: 'warn',
  output: { dir: 'dist/console-assets', format: 'iife', entryFileNames: '[name].js', minify: true },
};

export default [modules, entry, appHost];
