import { describe, expect, it } from 'vitest';
import { asJsonRpcMessage } from '../../../src/transport/stdio/json-rpc-frame.js';

describe('asJsonRpcMessage', () => {
  it.each([
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
  ])('accepts %j', (message) => {
    expect(asJsonRpcMessage(message)).toBe(message);
  });

  it.each([
    null,
    [],
    'text',
    { id: 1, method: 'x' },
    { jsonrpc: '1.0', id: 1, method: 'x' },
    { jsonrpc: '2.0', id: {}, method: 'x' },
    { jsonrpc: '2.0', method: 'x', params: [1, 2] },
    { jsonrpc: '2.0', id: 1 },
    { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
    { jsonrpc: '2.0', id: 1, result: 'not an object' },
    { jsonrpc: '2.0', id: 1, error: { message: 'no code' } },
    { jsonrpc: '2.0', result: {} },
  ])('refuses %j', (value) => {
    expect(asJsonRpcMessage(value)).toBeUndefined();
  });
});
