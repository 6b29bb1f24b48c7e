/** A host's servers get the client features its front end can answer, and only those. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRoots, rootsForDirectories } from '../../../src/client/features.js';
import { type Ask, createHost, type Host } from '../../../src/host/index.js';
import { tempDir } from '../../helpers/cli.js';
import { everythingPath } from '../../helpers/servers.js';

let dir: { path: string; remove: () => Promise<void> };
let configFile: string;
const hosts: Host[] = [];

beforeEach(async () => {
  dir = await tempDir('mcpx-host-features-');
  configFile = join(dir.path, 'mcp.json');
  await writeFile(
    configFile,
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingPath] } } }),
  );
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await dir.remove();
});

function hostWith(ask?: Ask): Host {
  const host = createHost({
    cwd: dir.path,
    homedir: dir.path,
    env: { PATH: process.env.PATH, MCPX_HOME: join(dir.path, '.mcpx') },
    configFile,
    ...(ask ? { ask } : {}),
  });
  hosts.push(host);
  return host;
}

async function toolNames(host: Host): Promise<string[]> {
  const connection = await host.connect(await host.server('everything'));
  return (await connection.listTools()).map((t) => t.name);
}

it('declares roots to a server when ask.features answers them, and the server reads them', async () => {
  const roots = createRoots(rootsForDirectories(['/srv/project']));
  const host = hostWith({ who: 'a test', features: () => ({ roots }) });
  const connection = await host.connect(await host.server('everything'));
  const result = await connection.callTool('get-roots-list', {});
  expect(JSON.stringify(result.content)).toContain('file:///srv/project');
});

it('declares nothing when nobody can be asked: the server offers no roots, sampling or elicitation tools', async () => {
  const names = await toolNames(hostWith());
  expect(names).not.toContain('get-roots-list');
  expect(names).not.toContain('trigger-sampling-request');
  expect(names).not.toContain('trigger-elicitation-request');
});
