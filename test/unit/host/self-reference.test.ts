import { describe, expect, it } from 'vitest';
import { SERVER_DEFAULTS } from '../../../src/config/server-defaults.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { selfReference } from '../../../src/host/self-reference.js';
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
});
