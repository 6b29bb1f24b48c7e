import { fileURLToPath } from 'node:url';

// The `mcpx` command and the library's entry points, bundled in one build into
// dist/bin: each entry plus lazily loaded chunks (one per command, the protocol
// stack, the HTTP stack), shared between the command and the library, so the
// package holds one copy of every module. Loading a few large files is much
// faster than resolving hundreds of small ones at every start (the SDK alone is
// ~100 files of it and zod); see bench/README.md for the figures. Types stay as
// tsc emits them (dist/**/*.d.ts).
export default {
  input: {
    mcpx: 'dist/cli/main.js',
    index: 'dist/index.js',
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
  output: {
    dir: 'dist/bin',
    // Chunk names carry content hashes: without this, every build would leave the old ones behind.
    cleanDir: true,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // A warm call through the daemon loads only the light caller (src/cli/light-caller.ts): its
    // few small modules in one chunk, so that call resolves and reads one file, not five.
    codeSplitting: {
      groups: [
        {
          name: 'light-caller',
          test: /dist\/(cli\/light-caller|config\/discover|daemon\/(paths|sha256|run-wire|socket-safety))\.js$/,
        },
      ],
    },
  },
};
