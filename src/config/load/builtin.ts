import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fingerprintEntry } from '../entry/fingerprint.js';
import { SERVER_DEFAULTS } from '../entry/server-defaults.js';
import type { ServerConfig } from '../types.js';

/**
 * Absolute path of the compiled stdio test server, wherever this module runs
 * from: `dist/config/load/builtin.js` (tsc output) or a chunk of the bundled
 * CLI in `dist/bin/chunks/` (both `../../testing/`), an entry file of the
 * bundle in `dist/bin/` (`../testing/`), or the sources under vitest
 * (`src/config/load/`, pointing into `<repo>/dist/`; `npm test` builds first).
 */
export function testServerPath(moduleUrl: string = import.meta.url): string {
  const candidates = moduleUrl.endsWith('.ts')
    ? ['../../../dist/testing/test-server.js']
    : ['../../testing/test-server.js', '../testing/test-server.js'];
  const paths = candidates.map((relative) => fileURLToPath(new URL(relative, moduleUrl)));
  return paths.find((path) => existsSync(path)) ?? (paths[0] as string);
}

/**
 * The built-in `demo` server: mcpx's own test server, run with the current
 * Node, so `mcpx tools demo` works on a fresh machine with no config at all.
 * Lowest precedence: any configured server named `demo` replaces it.
 */
export function builtinServers(): ServerConfig[] {
  const command = process.execPath;
  const args = [testServerPath()];
  return [
    {
      name: 'demo',
      transport: 'stdio',
      ...SERVER_DEFAULTS,
      command,
      args,
      origin: { layer: 'builtin' },
      fingerprint: fingerprintEntry({ command, args }),
    },
  ];
}
