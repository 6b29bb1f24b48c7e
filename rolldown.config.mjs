// The `mcpx` command as one bundled entry plus lazily loaded chunks (one per
// command, the protocol stack, the HTTP stack). Loading a few large files is
// much faster than resolving hundreds of small ones at every start; see
// bench/README.md for the figures. The library (`dist/index.js`) stays as tsc
// emits it.
export default {
  input: { mcpx: 'dist/cli/main.js' },
  platform: 'node',
  // jsonc-parser's `main` is a UMD build that cannot be bundled; its `module` is ESM.
  resolve: { mainFields: ['module', 'main'] },
  logLevel: 'warn',
  output: {
    dir: 'dist/bin',
    // Chunk names carry content hashes: without this, every build would leave the old ones behind.
    cleanDir: true,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  },
};
