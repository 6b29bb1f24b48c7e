import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../../src/config/index.js';
import { ErrorCode } from '../../../src/errors/index.js';
import {
  type Ask,
  createHost,
  type HostEvent,
  type HostOptions,
  type TrustQuestion,
} from '../../../src/host/index.js';
import { scriptedApprover } from '../../../src/permissions/index.js';
import { tempDir } from '../../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let repo: string;

beforeEach(async () => {
  dir = await tempDir('mcpx-host-');
  repo = join(dir.path, 'repo');
  await mkdir(repo);
  // Never started here: these tests stop at the choice of servers.
  await writeFile(
    join(repo, '.mcp.json'),
    JSON.stringify({ mcpServers: { planted: { command: 'planted-server', args: ['--serve'] } } }),
  );
});
afterEach(() => dir.remove());

function tool(name: string): Tool {
  return { name, inputSchema: { type: 'object' } };
}

function hostIn(options: HostOptions = {}) {
  const events: HostEvent[] = [];
  const host = createHost({ cwd: repo, env: { PATH: '/usr/bin' }, homedir: dir.path, ...options });
  host.on((event) => events.push(event));
  return { host, events };
}

function answering(answer: boolean, asked: TrustQuestion[] = []): Ask {
  return {
    who: 'a test',
    approveServer: async (question) => {
      asked.push(question);
      return answer;
    },
  };
}

describe('servers()', () => {
  it("puts a repository's unapproved entry to ask.approveServer, and records a yes in the trust store", async () => {
    const asked: TrustQuestion[] = [];
    const { host, events } = hostIn({ ask: answering(true, asked) });
    expect((await host.servers()).map((s) => s.name)).toEqual(['demo', 'planted']);
    expect(asked.map((q) => q.server.name)).toEqual(['planted']);
    expect(asked[0]?.description.join('\n')).toContain('planted-server --serve');
    expect(await host.untrusted()).toEqual([]);
    expect(events).toEqual([]);
    // A second host (the next command) finds it approved without asking.
    const trust = await readFile(join(dir.path, '.mcpx', 'trust.json'), 'utf8');
    expect(trust).toContain('planted');
    const again: TrustQuestion[] = [];
    const next = hostIn({ ask: answering(false, again) });
    expect((await next.host.servers()).map((s) => s.name)).toEqual(['demo', 'planted']);
    expect(again).toEqual([]);
  });

  it('skips the entry with a notice event when the answer is no, and when nobody can be asked', async () => {
    for (const ask of [answering(false), undefined]) {
      const { host, events } = hostIn(ask ? { ask } : {});
      expect((await host.servers()).map((s) => s.name)).toEqual(['demo']);
      expect((await host.untrusted()).map((s) => s.name)).toEqual(['planted']);
      expect(events).toEqual([
        {
          type: 'notice',
          message: expect.stringMatching(/^skipped server 'planted' from .*not trusted yet/),
        },
      ]);
      await expect(host.server('planted')).rejects.toMatchObject({ code: ErrorCode.ConfigUntrusted });
    }
  });

  it('leaves out the built-in demo beside servers of its own only when asked to', async () => {
    expect((await hostIn({ ask: answering(true) }).host.servers()).map((s) => s.name)).toEqual([
      'demo',
      'planted',
    ]);
    const { host } = hostIn({ ask: answering(true), omitBuiltinWhenConfigured: true });
    expect((await host.servers()).map((s) => s.name)).toEqual(['planted']);
  });

  it('names the servers there are when asked for one that is not', async () => {
    const { host } = hostIn({ ask: answering(true) });
    await expect(host.server('plante')).rejects.toMatchObject({
      code: ErrorCode.UnknownServer,
      message: "no server named 'plante' — did you mean 'planted'?",
    });
  });
});

describe('guard()', () => {
  it("takes the level from the options over the config's, and asks ask.approver", async () => {
    await writeFile(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: {} }));
    const approver = scriptedApprover({ connect: ['deny'] });
    const { host } = hostIn({ permission: 'sandboxed', ask: { who: 'a test', approver } });
    expect((await host.guard()).state.level).toBe('sandboxed');
    const trusted = hostIn({ ask: { who: 'a test', approver } }).host;
    const guard = await trusted.guard();
    expect(guard.state.level).toBe('trusted');
    expect(await guard.consent({ server: 'demo', tools: [] })).toBe('deny');
    expect(approver.asked.map((a) => a.kind)).toEqual(['connect']);
  });

  it('applies the policy: an allowed server runs unasked, an excluded tool is not offered', async () => {
    const approver = scriptedApprover({});
    const { host } = hostIn({
      ask: { who: 'a test', approver },
      policy: { allowServers: ['demo'], excludeTools: ['demo.add'] },
    });
    const guard = await host.guard();
    expect(guard.verdict({ server: 'demo', tool: tool('echo') }).kind).toBe('allow');
    expect(guard.verdict({ server: 'planted', tool: tool('echo') }).kind).toBe('ask-connect');
    expect(guard.offers('demo', 'add')).toBe(false);
    expect(guard.offers('demo', 'echo')).toBe(true);
    expect(approver.asked).toEqual([]);
  });

  it("reads a server's deny list as the registry holds the server now (a gateway's reload replaces it)", async () => {
    const configFile = join(dir.path, 'mine.json');
    await writeFile(
      configFile,
      JSON.stringify({ mcpServers: { x: { command: 'x', disabled_tools: ['rm'] } } }),
    );
    const { host } = hostIn({ configFile, permission: 'yolo' });
    const guard = await host.guard();
    expect(guard.verdict({ server: 'x', tool: tool('rm') }).kind).toBe('deny');
    const registry = await host.registry();
    const x = (await host.servers()).find((s) => s.name === 'x');
    registry.add({ ...(x as ServerConfig), denyTools: [] });
    expect(guard.verdict({ server: 'x', tool: tool('rm') }).kind).toBe('allow');
    // createGuard: the lists of exactly the servers given, at the same level.
    const own = await host.createGuard([{ ...(x as ServerConfig), denyTools: ['echo'] }]);
    expect(own.state.level).toBe('yolo');
    expect(own.verdict({ server: 'x', tool: tool('echo') }).kind).toBe('deny');
    expect(own.verdict({ server: 'x', tool: tool('rm') }).kind).toBe('allow');
    await host.close();
  });

  it('denies what needs a person when nobody can be asked', async () => {
    const { host } = hostIn({ ask: { who: 'nobody: a test' } });
    expect(await (await host.guard()).consent({ server: 'demo', tools: [] })).toBe('deny');
  });
});

it('fresh(): the config read again, its events told to the first host', async () => {
  const { host, events } = hostIn({ ask: answering(true) });
  expect((await host.servers()).map((s) => s.name)).toEqual(['demo', 'planted']);
  await writeFile(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { b: { command: 'b', argz: [] } } }));
  const fresh = host.fresh();
  expect((await fresh.servers()).map((s) => s.name)).toEqual(['demo', 'b']);
  expect((await host.servers()).map((s) => s.name)).toEqual(['demo', 'planted']);
  expect(events.some((e) => e.type === 'warning' && /argz/.test(e.message))).toBe(true);
  await fresh.close();
});

it('tells config warnings as events, and never prints', async () => {
  await writeFile(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { x: { command: 'x', argz: [] } } }));
  const { host, events } = hostIn();
  await host.config();
  expect(events.some((e) => e.type === 'warning' && /argz/.test(e.message))).toBe(true);
});

it('fills input variables from ask.input, asked once however many entries use them', async () => {
  const configFile = join(dir.path, 'mine.json');
  const env = { API_KEY: `\${input:api-key}` };
  await writeFile(
    configFile,
    JSON.stringify({ mcpServers: { one: { command: 'one', env }, two: { command: 'two', env } } }),
  );
  const asked: string[] = [];
  const { host } = hostIn({
    configFile,
    ask: {
      who: 'a test',
      input: async (request) => {
        asked.push(request.id);
        return 'the-key';
      },
    },
  });
  const servers = (await host.servers()).filter((s) => s.name !== 'demo');
  expect(servers.map((s) => s.env?.API_KEY)).toEqual(['the-key', 'the-key']);
  expect(asked).toEqual(['api_key']);
});

describe('options are settled when the host is made', () => {
  it('refuses changes: the type forbids them, and a later write to the given object never reaches the host', async () => {
    const allowServers = ['planted'];
    const options: HostOptions = { permission: 'sandboxed', policy: { allowServers } };
    // @ts-expect-error HostOptions is read-only: a knob is settled before createHost.
    options.permission = 'yolo';
    // @ts-expect-error its nested settings too.
    options.policy.allowServers = [];
    const given = { cwd: repo, homedir: dir.path, permission: 'sandboxed', policy: { allowServers } } as {
      cwd: string;
      homedir: string;
      permission: HostOptions['permission'];
      policy: { allowServers: string[] };
    };
    // The object itself, not a copy of it, is handed over.
    const host = createHost(given);
    given.permission = 'yolo';
    given.policy.allowServers = [];
    allowServers.push('other');
    expect(await host.permissionLevel()).toBe('sandboxed');
    await host.close();
  });

  it('reads each option once, when it is made (a getter is not consulted again)', async () => {
    let reads = 0;
    const host = createHost({
      cwd: repo,
      homedir: dir.path,
      get permission() {
        reads += 1;
        return reads === 1 ? ('sandboxed' as const) : ('yolo' as const);
      },
    });
    expect(await host.permissionLevel()).toBe('sandboxed');
    expect(await host.permissionLevel()).toBe('sandboxed');
    expect(reads).toBe(1);
    await host.close();
  });
});
