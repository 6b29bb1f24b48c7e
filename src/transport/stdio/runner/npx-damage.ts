/**
 * A damaged `_npx/<hash>` folder, recognised from what the server's start
 * printed: Node cannot find a module or package inside it, or npm cannot read
 * its package.json. npx takes such a folder for installed and runs from it
 * every time, so `npm install` cannot help: only removing the folder can.
 */
import { existsSync } from 'node:fs';
import { ErrorCode, McpxError } from '../../../errors/index.js';
import { npxFolderFor } from './npx-folder.js';
import { isNpmRunner, recognisePackageRunner } from './recognise-runner.js';
import type { RunnerScene } from './watch-runner.js';

// A missing module or file reported for a path inside an _npx folder.
const MISSING =
  /ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND|Cannot find (?:module|package)|ENOENT|Could not read package\.json/i;
// The folder inside such a line: up to `_npx/<16 hex digits>`, quoted (Node quotes paths) or not.
const QUOTED_FOLDER = /['"`]((?:[A-Za-z]:)?[^'"`]*?[\\/]_npx[\\/][0-9a-f]{16})(?![0-9a-f])/;
const BARE_FOLDER = /((?:[A-Za-z]:)?[^\s'"`:]*?[\\/]_npx[\\/][0-9a-f]{16})(?![0-9a-f])/;
// The folder goes into a command the person is told to run, and the line comes from the server:
// only plain path characters.
const PLAIN_PATH = /^(?:[A-Za-z]:)?[\w.~ \\/+@-]+$/;

/** The damaged folder named in these stderr lines, or `undefined`. */
export function damagedNpxFolderIn(lines: readonly string[]): string | undefined {
  for (const raw of lines) {
    if (!MISSING.test(raw)) continue;
    const line = raw.replace(/file:\/\/(?=[\\/]|[A-Za-z]:)/g, '');
    const path = (QUOTED_FOLDER.exec(line) ?? BARE_FOLDER.exec(line))?.[1];
    if (path && PLAIN_PATH.test(path)) return path;
  }
  return undefined;
}

function removeCommand(folder: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? `rmdir /s /q "${folder}"` : `rm -rf '${folder}'`;
}

/**
 * The NpxCacheDamaged error for a server that failed to start because its npx
 * folder is damaged, or `undefined` when its stderr says nothing of the kind.
 * The folder is the one npm's rules give for this server when the stderr
 * names it; another `_npx` folder named is taken only if it exists.
 */
export function diagnoseNpxDamage(
  scene: RunnerScene,
  stderrTail: readonly string[],
  details: { readonly command: string; readonly exitCode: number | null; readonly signal: string | null },
): McpxError | undefined {
  const named = damagedNpxFolderIn(stderrTail);
  if (!named) return undefined;
  const start = recognisePackageRunner(scene.command, scene.args);
  const own = start && isNpmRunner(start) ? npxFolderFor(start, scene) : undefined;
  const sameHash = own !== undefined && named.slice(-16) === own.slice(-16);
  const folder = sameHash ? own : existsSync(named) ? named : undefined;
  if (!folder) return undefined;
  const remove = removeCommand(folder, scene.platform);
  return new McpxError(
    ErrorCode.NpxCacheDamaged,
    `server '${scene.serverName}' cannot start: npx's folder ${folder} holds an unfinished install`,
    {
      server: scene.serverName,
      command: details.command,
      folder,
      exitCode: details.exitCode,
      signal: details.signal,
      stderrTail,
      causes: [
        'an earlier npx run was stopped while it installed the package, and left the folder half written',
        'npx takes the folder for installed and runs from it each time, so the missing files stay missing',
      ],
      fixes: [`remove the folder: ${remove} (npx installs the package afresh on the next start)`],
    },
  );
}
