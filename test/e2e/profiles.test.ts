/**
 * Issue 25, item 3: profiles (`"profiles"` in mcpx's config, `--profile NAME`) through
 * `mcpx serve`, `mcpx chat --once` and the library: a tool the profile leaves out is
 * neither listed nor callable, and a call of it by name is refused as "not in profile".
 * A repository's file can only narrow a profile. Also `mcpx config enable|disable <server> <tool…>`.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../../src/testing/fake-model-server.js';
import { runChatWithModel } from '../helpers/chat.js';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { firstText, gatewayWorld } from '../helpers/gateway.js';

const slow = { timeout: 60_000 };
const server = { command: process.execPath, args: [testServerPath] };
/** `t` and `u` run the test server; `narrow` keeps t's echo and add (get_time is excluded again). */
const config = {
  permission: 'yolo',
  mcpServers: { t: server, u: server },
  profiles: {
    narrow: { servers: ['t'], tools: ['t.echo', 't.add', 'get_*'], exclude_tools: ['t.get_time'] },
  },
};

let dir: { path: string; remove: () => Promise<void> };
let count = 0;
const models: FakeModelServer[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-profiles-');
});
afterAll(() => dir.remove());
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

/** A fresh home (its global file holding `global`) and a project folder (its `.mcpx/mcp.json` holding `project`). */
async function workspace(global: unknown, project?: unknown) {
  count += 1;
  const root = join(dir.path, `w${count}`);
  const home = join(root, 'home');
  const cwd = join(root, 'repo');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await mkdir(join(cwd, '.mcpx'), { recursive: true });
  const globalFile = join(home, '.mcpx', 'mcp.json');
  await writeFile(globalFile, typeof global === 'string' ? global : JSON.stringify(global, null, 2));
  if (project !== undefined)
    await writeFile(join(cwd, '.mcpx', 'mcp.json'), JSON.stringify(project, null, 2));
  return { home, cwd, globalFile, cli: (args: string[]) => runCli(args, { cwd, home, timeoutMs: 30_000 }) };
}

/** `node <args>` (an mcpx serve) started as a host would, from the workspace's folder: its tools' names. */
async function serveTools(args: readonly string[], w: { home: string; cwd: string }): Promise<string[]> {
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...args],
      env: { PATH: process.env.PATH ?? '', HOME: w.home, MCPX_HOME: join(w.home, '.mcpx') },
      cwd: w.cwd,
      stderr: 'pipe',
    }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

describe('mcpx serve --profile', () => {
  it(
    'lists only the profile’s tools, and refuses a hidden one by name as not in the profile',
    slow,
    async () => {
      const world = await gatewayWorld(config);
      try {
        const gateway = await world.serve(['--profile', 'narrow']);
        const client = await world.client(gateway.url, 'legacy');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['t__add', 't__echo']);
        expect(firstText(await client.callTool({ name: 't__echo', arguments: { message: 'hi' } }))).toBe(
          'hi',
        );
        // A tool of a served server the profile leaves out, and a tool of a server it leaves out.
        for (const name of ['t__get_time', 'u__echo']) {
          const refused = await client.callTool({ name, arguments: { message: 'hi' } });
          expect(refused.isError, name).toBe(true);
          expect(firstText(refused)).toMatch(/is not in profile 'narrow'/);
        }
        // Not a profile's doing: still an unknown tool.
        await expect(client.callTool({ name: 't__nothing', arguments: {} })).rejects.toThrow(/Unknown tool/);
      } finally {
        await world.close();
      }
    },
  );

  it(
    'a profile’s tool globs hide its servers’ resources and prompts too, unless they name them',
    slow,
    async () => {
      const world = await gatewayWorld({
        ...config,
        profiles: {
          ...config.profiles,
          withContent: { servers: ['t'], tools: ['t.echo', 't.resources/*', 't.prompts/get'] },
        },
      });
      try {
        const narrow = await world.client((await world.serve(['--profile', 'narrow'])).url, 'legacy');
        expect((await narrow.listResources()).resources).toEqual([]);
        expect((await narrow.listPrompts()).prompts).toEqual([]);
        await expect(narrow.readResource({ uri: 'mcpx://t/test://readme.txt' })).rejects.toThrow(
          /not in profile 'narrow'/,
        );
        await expect(narrow.getPrompt({ name: 't__greeting', arguments: { name: 'Ada' } })).rejects.toThrow(
          /not in profile 'narrow'/,
        );
        const wide = await world.client((await world.serve(['--profile', 'withContent'])).url, 'legacy');
        const resources = (await wide.listResources()).resources.map((r) => r.uri);
        expect(resources.length).toBeGreaterThan(0);
        expect((await wide.readResource({ uri: resources[0] as string })).contents.length).toBeGreaterThan(0);
        expect((await wide.listPrompts()).prompts.map((p) => p.name)).toContain('t__greeting');
      } finally {
        await world.close();
      }
    },
  );

  it(
    'an unknown profile, an unknown server in one and a profile above the level are errors that say where',
    slow,
    async () => {
      const w = await workspace({
        mcpServers: { t: server },
        profiles: { typo: { servers: ['tt'] }, hot: { permission: 'yolo' } },
      });
      const unknown = await w.cli(['serve', '--profile', 'narow']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no profile named 'narow'.*profiles: typo, hot/s);
      const typo = await w.cli(['serve', '--profile', 'typo']);
      expect(typo.stderr).toContain(
        // The global file, as a person reads it (under the home: ~/).
        "~/.mcpx/mcp.json:11: profile 'typo' names server 'tt', which is not configured — did you mean 't'?",
      );
      // `config validate` finds it too, without the profile being used.
      const validate = await w.cli(['config', 'validate']);
      expect(validate.code).toBe(2);
      expect(validate.stderr).toContain("profile 'typo' names server 'tt', which is not configured");
      const hot = await w.cli(['serve', '--profile', 'hot']);
      expect(hot.code).toBe(2);
      expect(hot.stderr).toMatch(/profile 'hot' asks for permission 'yolo', above 'trusted'/);
    },
  );

  it('a bad glob or key in a profile is a config error with file and line', async () => {
    const w = await workspace(
      '{\n  "mcpServers": {},\n  "profiles": {\n    "p": { "tools": ["github.[a-z]*"], "tool": [] }\n  }\n}\n',
    );
    const run = await w.cli(['config', 'validate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('~/.mcpx/mcp.json:4:');
    expect(run.stderr).toMatch(/bad tool glob: only \* and \? are wildcards/);
    expect(run.stderr).toMatch(/profile 'p': unknown key 'tool' — did you mean 'tools'\?/);
  });
});

describe('mcpx chat --once --profile', () => {
  it(
    'the model is offered only the profile’s tools, and a call of a hidden one is refused',
    slow,
    async () => {
      const w = await workspace(config);
      const run = await runChatWithModel(
        [{ toolCalls: [{ name: 'mcp_t_get_time', arguments: {} }] }, { text: 'Not allowed.' }],
        { cwd: w.cwd, home: w.home, args: ['--once', 'what time is it?', '--profile', 'narrow'] },
        models,
      );
      expect(run.code, run.stderr).toBe(0);
      const offered = (run.model.requests[0] as { tools: { function: { name: string } }[] }).tools.map(
        (t) => t.function.name,
      );
      expect(offered.sort()).toEqual(['mcp_t_add', 'mcp_t_echo']);
      const toolMessage = (
        run.model.requests[1] as { messages: { role: string; content: string }[] }
      ).messages.find((m) => m.role === 'tool');
      expect(toolMessage?.content).toMatch(/PERMISSION_DENIED.*'get_time' of 't' is not in profile 'narrow'/);
    },
  );
});

describe('createHost({ profile })', () => {
  it(
    'servers(), catalogue() and agentTools() hold only the profile; a hidden tool cannot be called',
    slow,
    async () => {
      const w = await workspace(config);
      const program = join(w.cwd, 'program.mjs');
      await writeFile(
        program,
        `import { createHost } from ${JSON.stringify(join(repoRoot, 'dist/bin/index.js'))};
const host = createHost({ profile: 'narrow' });
try {
  const servers = (await host.servers()).map((s) => s.name);
  const catalogue = (await host.catalogue()).names;
  const tools = await host.agentTools();
  const agent = tools.tools.map((t) => t.name);
  const echoed = (await tools.call('mcp_t_echo', { message: 'hi' })).text;
  const refused = await tools.call('mcp_t_get_time', {}).then(() => 'called', (e) => e.message);
  tools.close();
  const withResources = await host.agentTools({ resources: true });
  const resourcePair = withResources.tools.filter((t) => t.name === 'list_resources' || t.name === 'read_resource').length;
  withResources.close();
  console.log(JSON.stringify({ servers, catalogue, agent, echoed, refused, resourcePair, level: await host.permissionLevel() }));
} finally {
  await host.close();
}
`,
      );
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [program], {
        cwd: w.cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.home, MCPX_HOME: join(w.home, '.mcpx') },
      });
      expect(stderr).toBe('');
      const out = JSON.parse(stdout);
      expect(out.servers).toEqual(['t']);
      expect(out.catalogue.sort()).toEqual(['mcp_t_add', 'mcp_t_echo']);
      expect(out.agent.sort()).toEqual(['mcp_t_add', 'mcp_t_echo']);
      expect(out.echoed).toBe('hi');
      expect(out.refused).toMatch(/'get_time' of 't' is not in profile 'narrow'/);
      // The profile's globs name none of t's resources: the resource pair is not offered.
      expect(out.resourcePair).toBe(0);
      expect(out.level).toBe('yolo');
    },
  );
});

describe('a repository’s file can only narrow a profile', () => {
  it(
    'its definition of the user’s profile narrows it, never widens it, and cannot raise the level',
    slow,
    async () => {
      // The user's own level is the default, trusted.
      const w = await workspace(
        { mcpServers: config.mcpServers, profiles: config.profiles },
        {
          profiles: {
            // Wider than the user's: every server, every tool.
            narrow: { servers: ['t', 'u'], tools: ['*'] },
            // Narrower: only add.
            tight: { tools: ['t.add'] },
            free: { permission: 'yolo' },
          },
        },
      );
      const listed = await w.cli(['--json', 'config', 'profiles']);
      const profiles = JSON.parse(listed.stdout) as { name: string; layers: { layer: string }[] }[];
      expect(profiles.find((p) => p.name === 'narrow')?.layers.map((l) => l.layer)).toEqual([
        'global',
        'project',
      ]);
      // The project's folder, its own files discovered (no --config): serve on stdio from there.
      const tools = (profile: string) =>
        serveTools([join(repoRoot, 'dist/bin/mcpx.cjs'), 'serve', '--profile', profile], w);
      expect(await tools('narrow')).toEqual(['t__add', 't__echo']);
      expect(await tools('tight')).toEqual(['t__add']);
      const free = await w.cli(['serve', '--profile', 'free']);
      expect(free.code).toBe(2);
      expect(free.stderr).toMatch(
        /profile 'free' asks for permission 'yolo', above 'trusted' that your config grants/,
      );
      expect(free.stderr).toMatch(/a repository's profile may only lower the level/);
    },
  );
});

describe('mcpx exec --profile', () => {
  it('hands over one mcpx serve --profile entry, which serves only the profile', slow, async () => {
    const w = await workspace(config);
    const record = join(w.cwd, 'record.json');
    const stub = join(repoRoot, 'test/fixtures/exec-stub.mjs');
    const run = await runCli(['exec', '--profile', 'narrow', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: { STUB_RECORD: record },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(
      "mcpx exec: handing profile 'narrow' to node as one server, mcpx (mcpx serve --profile narrow), with t\n" +
        "mcpx exec: left out: demo (outside profile 'narrow'), u (outside profile 'narrow')\n",
    );
    const { contents } = JSON.parse(await readFile(record, 'utf8')) as {
      contents: { mcpServers: Record<string, { command: string; args: string[] }> };
    };
    expect(Object.keys(contents.mcpServers)).toEqual(['mcpx']);
    const entry = contents.mcpServers.mcpx as { command: string; args: string[] };
    expect(entry.args.slice(-3)).toEqual(['serve', '--profile', 'narrow']);
    expect(await serveTools(entry.args, w)).toEqual(['t__add', 't__echo']);
    const both = await w.cli(['exec', '--profile', 'narrow', '--servers', 't', '--', process.execPath, stub]);
    expect(both.stderr).toMatch(/--servers and --profile narrow both choose servers/);
  });
});

describe('mcpx config export --via-gateway --profile', () => {
  it('writes mcpx serve --profile P, and refuses an unknown profile', async () => {
    const w = await workspace(config);
    const run = await w.cli([
      '--json',
      'config',
      'export',
      '--to',
      'claude-code',
      '--via-gateway',
      '--profile',
      'narrow',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const entry = (JSON.parse(run.stdout) as { servers: { mcpx: { args: string[] } } }).servers.mcpx;
    expect(entry.args.slice(-3)).toEqual(['serve', '--profile', 'narrow']);
    const unknown = await w.cli([
      'config',
      'export',
      '--to',
      'claude-code',
      '--via-gateway',
      '--profile',
      'nope',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no profile named 'nope'/);
  });
});

describe('mcpx config enable|disable <server> <tool…>', () => {
  it('switches tools off and on in the file, keeping its comments, and the tools follow', slow, async () => {
    const text = `{
  // my servers
  "mcpServers": {
    "t": {
      "command": ${JSON.stringify(process.execPath)},
      "args": [${JSON.stringify(testServerPath)}] // the test server
    },
    "a": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(testServerPath)}], "allowed_tools": ["echo", "add"] }
  }
}
`;
    const w = await workspace(text);
    const names = async (s: string) =>
      (JSON.parse((await w.cli(['--json', 'tools', s])).stdout) as { tools: { name: string }[] }[])
        .flatMap((e) => e.tools)
        .map((t) => t.name);
    const off = await w.cli(['config', 'disable', 't', 'echo', 'add']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain("disabled tools 'echo', 'add' of 't' in ~/.mcpx/mcp.json");
    expect(off.stderr).toContain("not checked against what 't' offers now");
    let file = await readFile(w.globalFile, 'utf8');
    expect(file).toContain('// my servers');
    expect(file).toContain('// the test server');
    expect(file).toMatch(/"disabled_tools": \[\s*"echo",\s*"add"\s*\]/);
    expect(await names('t')).not.toContain('echo');
    // With an allow list, switching a tool off takes it out of the list.
    const json = await w.cli(['--json', 'config', 'disable', 'a', 'add']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      server: 'a',
      tools: ['add'],
      outcome: 'disabled',
      scope: 'global',
    });
    expect(await names('a')).toEqual(['echo']);
    // And back on.
    expect((await w.cli(['config', 'enable', 't', 'echo', 'add'])).code).toBe(0);
    expect((await w.cli(['config', 'enable', 'a', 'add'])).code).toBe(0);
    file = await readFile(w.globalFile, 'utf8');
    expect(file).not.toContain('disabled_tools');
    expect(file).toMatch(/"allowed_tools": \[\s*"echo",\s*"add"\s*\]/);
    expect(file).toContain('// the test server');
    expect(await names('t')).toContain('echo');
    const again = await w.cli(['config', 'enable', 't', 'echo']);
    expect(again.stdout).toMatch(/tool 'echo' of 't' in .* was already so; nothing changed/);
    const unknown = await w.cli(['config', 'disable', 'nope', 'echo']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no server named 'nope' in .*servers in this file: t, a/s);
    const glob = await w.cli(['config', 'disable', 't', 'get_*']);
    expect(glob.stderr).toMatch(/a tool name is the exact name the server gives it/);
  });
});
