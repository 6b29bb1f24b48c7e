import { describe, expect, it } from 'vitest';
import { SERVER_DEFAULTS } from '../../../src/config/entry/server-defaults.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { type McpxAncestor, mcpxAncestors, selfReference } from '../../../src/host/self-reference.js';
import {
  extendServerChain,
  MAX_SERVER_CHAIN,
  readServerChain,
  SERVER_CHAIN_VARIABLE,
  serverChainKey,
} from '../../../src/transport/stdio/server-chain.js';

function entry(
  command: string,
  args: string[],
  layer: ServerConfig['origin']['layer'] = 'project',
): ServerConfig {
  return {
    name: 'x',
    transport: 'stdio',
    ...SERVER_DEFAULTS,
    command,
    args,
    origin: { layer, file: '/p/.mcp.json', line: 1 },
    fingerprint: 'f',
  };
}

const chainOf = (...keys: string[]) => ({ [SERVER_CHAIN_VARIABLE]: keys.join(',') });

describe('selfReference', () => {
  it('refuses a configured entry that runs mcpx, and lets the same command line through as --stdio', () => {
    expect(selfReference(entry('mcpx', ['serve']), { env: {} })?.code).toBe(ErrorCode.SelfReference);
    expect(selfReference(entry('mcpx', ['serve'], 'adhoc'), { env: {} })).toBeUndefined();
    expect(selfReference(entry('node', ['server.js']), { env: {} })).toBeUndefined();
  });

  it('refuses an entry already on MCPX_SERVER_CHAIN, --stdio included: it is how this mcpx was started', () => {
    const wrapper = entry('./run-gateway.sh', []);
    const env = { [SERVER_CHAIN_VARIABLE]: extendServerChain({}, { command: './run-gateway.sh', args: [] }) };
    expect(selfReference(wrapper, { env })?.code).toBe(ErrorCode.SelfReference);
    expect(selfReference(entry('./run-gateway.sh', [], 'adhoc'), { env })?.code).toBe(
      ErrorCode.SelfReference,
    );
    expect(selfReference(entry('./other.sh', []), { env })).toBeUndefined();
  });

  it(`starts no stdio server ${MAX_SERVER_CHAIN} levels deep, whatever the entry`, () => {
    const keys = Array.from({ length: MAX_SERVER_CHAIN }, (_, i) =>
      serverChainKey({ command: `g${i}`, args: [] }),
    );
    expect(selfReference(entry('node', ['server.js'], 'adhoc'), { env: chainOf(...keys) })?.code).toBe(
      ErrorCode.SelfReference,
    );
    expect(selfReference(entry('node', ['server.js']), { env: chainOf(...keys.slice(1)) })).toBeUndefined();
    expect(
      selfReference({ ...entry('mcpx', []), transport: 'http', url: 'https://x' }, { env: chainOf(...keys) }),
    ).toBeUndefined();
  });

  it('reads only keys of its own shape from the variable', () => {
    const key = serverChainKey({ command: 'a', args: ['b'], cwd: '/c' });
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(readServerChain({ [SERVER_CHAIN_VARIABLE]: `${key},nonsense,,${'f'.repeat(16)}` })).toEqual([
      key,
      'f'.repeat(16),
    ]);
    expect(extendServerChain(chainOf(key), { command: 'd', args: [] }).split(',')).toHaveLength(2);
  });

  const mcpxAbove = (count: number, twinAt?: number): McpxAncestor[] =>
    Array.from({ length: count }, (_, i) => ({
      pid: 100 + i,
      command: `node /opt/mcpx/dist/bin/mcpx.cjs serve --config /p/${i}.json`,
      twin: i === twinAt,
    }));

  it(`counts mcpx processes above it, which no wrapper can clear: none started ${MAX_SERVER_CHAIN} deep`, () => {
    const server = entry('node', ['server.js']);
    const deep = selfReference(server, { env: {}, ancestors: () => mcpxAbove(MAX_SERVER_CHAIN) });
    expect(deep?.code).toBe(ErrorCode.SelfReference);
    expect(deep?.message).toBe(
      `this mcpx already runs ${MAX_SERVER_CHAIN} deep inside other mcpx processes (pids 100, 101, 102, 103, 104, 105, nearest first), so it starts no more stdio servers`,
    );
    expect(deep?.causes).toContain(
      'the nearest mcpx above this one: pid 100, node /opt/mcpx/dist/bin/mcpx.cjs serve --config /p/0.json',
    );
    expect(
      selfReference(entry('node', ['server.js'], 'adhoc'), {
        env: {},
        ancestors: () => mcpxAbove(MAX_SERVER_CHAIN),
      })?.code,
    ).toBe(ErrorCode.SelfReference);
    expect(
      selfReference(server, { env: {}, ancestors: () => mcpxAbove(MAX_SERVER_CHAIN - 1) }),
    ).toBeUndefined();
    // Remote servers start no process.
    expect(
      selfReference(
        { ...entry('mcpx', []), transport: 'http', url: 'https://x' },
        { env: {}, ancestors: () => mcpxAbove(MAX_SERVER_CHAIN) },
      ),
    ).toBeUndefined();
  });

  it('starts nothing when an mcpx above was started exactly as it was: that is a loop', () => {
    const refused = selfReference(entry('node', ['server.js']), {
      env: {},
      ancestors: () => mcpxAbove(2, 1),
    });
    expect(refused?.code).toBe(ErrorCode.SelfReference);
    expect(refused?.message).toContain('this mcpx was started exactly as mcpx pid 101 above it was');
    expect(
      selfReference(entry('node', ['server.js']), { env: {}, ancestors: () => mcpxAbove(2) }),
    ).toBeUndefined();
  });

  it('asks about the ancestry only for a stdio server', () => {
    let asked = 0;
    const ancestors = () => {
      asked++;
      return [];
    };
    selfReference({ ...entry('mcpx', []), transport: 'http', url: 'https://x' }, { env: {}, ancestors });
    expect(asked).toBe(0);
    selfReference(entry('node', ['server.js']), { env: {}, ancestors });
    expect(asked).toBe(1);
  });
});

describe('mcpxAncestors', () => {
  it('keeps the ancestors that are mcpx itself, nearest first, and which were started as this one', () => {
    const found = mcpxAncestors('/opt/mcpx/dist/bin/mcpx.cjs', {
      ancestry: () => [
        { pid: 30, argv: ['sh', '/tmp/wrapper.sh'] },
        { pid: 20, argv: ['node', '/opt/mcpx/dist/bin/mcpx.cjs', 'serve'] },
        { pid: 15, argv: ['env', '-i', 'node', '/opt/mcpx/dist/bin/mcpx.cjs', 'serve'] },
        { pid: 10, argv: ['/usr/bin/node', '/usr/local/bin/mcpx', 'serve', '--http'] },
        { pid: 1, argv: ['/sbin/init'] },
      ],
      twin: (pid) => pid === 20,
    });
    expect(found).toEqual([
      { pid: 20, command: 'node /opt/mcpx/dist/bin/mcpx.cjs serve', twin: true },
      { pid: 10, command: '/usr/bin/node /usr/local/bin/mcpx serve --http', twin: false },
    ]);
    expect(mcpxAncestors(undefined, { ancestry: () => undefined, twin: () => false })).toEqual([]);
  });
});
