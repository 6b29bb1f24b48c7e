import { describe, expect, it } from 'vitest';
import {
  MAX_KEPT_URI_CHARS,
  settingChangeOf,
  settingsRequests,
} from '../../../src/gateway/http/session-settings.js';

const request = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

describe('the settings a 2025-11-25 session carries across a fleet', () => {
  it('are read from setLevel, subscribe and unsubscribe requests only', () => {
    expect(settingChangeOf(request('logging/setLevel', { level: 'warning' }))).toEqual({
      logLevel: 'warning',
    });
    expect(settingChangeOf(request('resources/subscribe', { uri: 'mcpx://a/x' }))).toEqual({
      subscribe: 'mcpx://a/x',
    });
    expect(settingChangeOf(request('resources/unsubscribe', { uri: 'mcpx://a/x' }))).toEqual({
      unsubscribe: 'mcpx://a/x',
    });
    expect(settingChangeOf(request('tools/call', { name: 'x' }))).toBeUndefined();
    expect(settingChangeOf([request('logging/setLevel', { level: 'debug' })])).toBeUndefined();
  });

  it('keep no level that is not one, and no URI that is empty or over the bound', () => {
    expect(settingChangeOf(request('logging/setLevel', { level: 'loud' }))).toBeUndefined();
    expect(settingChangeOf(request('logging/setLevel', { level: 3 }))).toBeUndefined();
    expect(settingChangeOf(request('resources/subscribe', { uri: '' }))).toBeUndefined();
    expect(
      settingChangeOf(request('resources/subscribe', { uri: `x:${'a'.repeat(MAX_KEPT_URI_CHARS)}` })),
    ).toBeUndefined();
  });

  it('are set again as the level first, then each subscription', () => {
    expect(settingsRequests({ logLevel: 'error', subscriptions: ['u1', 'u2'] })).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'error' } },
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'u1' } },
      { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'u2' } },
    ]);
    expect(settingsRequests({ subscriptions: [] })).toEqual([]);
  });
});
