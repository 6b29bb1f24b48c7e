import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { McpxError } from '../../../src/errors/index.js';
import { toolForApp } from '../../../src/host/app-call.js';

const tool = (name: string, visibility?: unknown): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...(visibility === undefined ? {} : { _meta: { ui: { resourceUri: 'ui://a/b.html', visibility } } }),
});

const tools = [
  tool('plain'),
  tool('both', ['model', 'app']),
  tool('app', ['app']),
  tool('model', ['model']),
  tool('garbled', 'app'),
];

const refusal = (name: string): McpxError | undefined => {
  try {
    toolForApp('srv', name, tools);
    return undefined;
  } catch (error) {
    return error as McpxError;
  }
};

describe('toolForApp: what an MCP App may call', () => {
  it('allows a tool without a visibility (model and app, the default) and one that lists "app"', () => {
    for (const name of ['plain', 'both', 'app']) expect(toolForApp('srv', name, tools).name).toBe(name);
  });

  it('refuses a tool for the model alone, saying so', () => {
    expect(refusal('model')).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: "'model' of 'srv' is for the model alone: an App may not call it",
    });
  });

  it('refuses a visibility that is not a list: the server did not say an App may call it', () => {
    expect(refusal('garbled')?.code).toBe('PERMISSION_DENIED');
  });

  it('refuses a tool its server does not list', () => {
    expect(refusal('other')).toMatchObject({ code: 'UNKNOWN_TOOL', message: "'srv' has no tool 'other'" });
  });
});
