import { fileURLToPath } from 'node:url';
import { fingerprintEntry } from './fingerprint.js';
import { SERVER_DEFAULTS } from './server-defaults.js';
import type { ServerConfig } from './types.js';

/**
 * Absolute path of the compiled stdio test server. Compiled, this module is
 * `dist/config/builtin.js` and the server sits at `../testing/`; run from
 * sources (vitest) it is `src/config/builtin.ts`, which has no compiled
 * sibling, so it points into `<repo>/dist/` instead (`npm test` builds first).
 */
export function testServerPath(moduleUrl: string = import.meta.url): string {
  const relative = moduleUrl.endsWith('.ts')
    ? '../../dist/testing/test-server.js'
    : '../testing/test-server.js';
  return fileURLToPath(new URL(relative, moduleUrl));
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
