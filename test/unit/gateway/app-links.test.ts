import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { capabilitiesFor } from '../../../src/client/features.js';
import { requestMeta } from '../../../src/client/request-meta.js';
import { namespacedResult, namespacedTool } from '../../../src/gateway/app-links.js';
import { isAppUri, namespacedNames } from '../../../src/gateway/namespace.js';

const ns = namespacedNames(() => ['a', 'b', 'my server', 'x/y']);
const UI = 'io.modelcontextprotocol/ui';
const APP_MIME = 'text/html;profile=mcp-app';

describe('ui:// URIs through the namespaced gateway', () => {
  it('keep the scheme, put the server first, and map back byte for byte', () => {
    for (const [server, upstream, client] of [
      ['a', 'ui://weather/view.html', 'ui://a/weather/view.html'],
      ['a', 'ui://dashboard', 'ui://a/dashboard'],
      ['my server', 'ui://w/v.html?x=1#y', 'ui://my%20server/w/v.html?x=1#y'],
      ['x/y', 'ui://w/{id}', 'ui://x%2Fy/w/{id}'],
    ] as const) {
      expect(ns.uri(server, upstream)).toBe(client);
      expect(ns.parseUri(client)).toEqual({ server, name: upstream });
    }
  });

  it('cannot reach another server: an upstream URI naming one stays under its own', () => {
    // `a` lists a URI that looks like `b`'s space; the client sees it under `a`, and reads it from `a`.
    const shadow = ns.uri('a', 'ui://b/dashboard/view.html');
    expect(shadow).toBe('ui://a/b/dashboard/view.html');
    expect(ns.parseUri(shadow)).toEqual({ server: 'a', name: 'ui://b/dashboard/view.html' });
    expect(ns.uri('b', 'ui://dashboard/view.html')).toBe('ui://b/dashboard/view.html');
    expect(ns.parseUri('ui://b/dashboard/view.html')).toEqual({
      server: 'b',
      name: 'ui://dashboard/view.html',
    });
  });

  it('refuses client URIs it never made: an unserved server, an empty or unfit rest', () => {
    expect(ns.parseUri('ui://nobody/dashboard')).toBeUndefined();
    expect(ns.parseUri('ui://a/')).toBeUndefined();
    expect(ns.parseUri('ui://a')).toBeUndefined();
    expect(ns.parseUri('ui://a/x\u001b[2J')).toBeUndefined();
    expect(ns.parseUri('ui://%E0%A4%A/x')).toBeUndefined();
  });

  it('serves a malformed ui:// URI as any other resource (mcpx://), never as an App', () => {
    for (const bad of [
      'ui://',
      'ui://has space/x',
      'ui://x\u001b]52;c;AA\u0007',
      'ui:x',
      'UI://x',
      'ui://x\u200e/y',
    ]) {
      expect(isAppUri(bad)).toBe(false);
      const mapped = ns.uri('a', bad);
      expect(mapped).toBe(`mcpx://a/${bad}`);
      expect(ns.parseUri(mapped)).toEqual({ server: 'a', name: bad });
    }
  });
});

const tool = (meta: Record<string, unknown> | undefined): Tool => ({
  name: 't',
  inputSchema: { type: 'object' },
  ...(meta ? { _meta: meta } : {}),
});

describe('namespacedTool', () => {
  it('names both UI links in the client’s terms and keeps the rest of _meta', () => {
    const mapped = namespacedTool(
      tool({
        ui: { resourceUri: 'ui://weather/view.html', visibility: ['app'], extra: 1 },
        'ui/resourceUri': 'ui://weather/view.html',
        other: { kept: true },
      }),
      'a',
      ns,
    );
    expect(mapped._meta).toEqual({
      ui: { resourceUri: 'ui://a/weather/view.html', visibility: ['app'], extra: 1 },
      'ui/resourceUri': 'ui://a/weather/view.html',
      other: { kept: true },
    });
  });

  it('drops a link that is no ui:// URI a client could hold, keeping the tool and its visibility', () => {
    for (const bad of ['mcpx://b/x', 'https://evil.example/app.html', 'ui://\u001b[2J', 42, null]) {
      const mapped = namespacedTool(
        tool({ ui: { resourceUri: bad, visibility: ['model'] }, 'ui/resourceUri': bad }),
        'a',
        ns,
      );
      expect(mapped._meta).toEqual({ ui: { visibility: ['model'] } });
    }
  });

  it('returns a tool without a link as it is', () => {
    const plain = tool({ ui: { visibility: ['model'] } });
    expect(namespacedTool(plain, 'a', ns)).toBe(plain);
    const bare = tool(undefined);
    expect(namespacedTool(bare, 'a', ns)).toBe(bare);
  });
});

describe('namespacedResult', () => {
  it('names resource links and embedded resources so the client can read them through the gateway', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'hi' },
        { type: 'resource_link', uri: 'ui://dashboard/view.html', name: 'd', mimeType: APP_MIME },
        { type: 'resource', resource: { uri: 'file:///tmp/x', text: 'x', mimeType: 'text/plain' } },
      ],
      structuredContent: { kept: true },
    };
    const mapped = namespacedResult(result, 'my server', ns);
    expect(mapped).toEqual({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'resource_link', uri: 'ui://my%20server/dashboard/view.html', name: 'd', mimeType: APP_MIME },
        {
          type: 'resource',
          resource: { uri: 'mcpx://my%20server/file:///tmp/x', text: 'x', mimeType: 'text/plain' },
        },
      ],
      structuredContent: { kept: true },
    });
    expect(ns.parseUri((mapped.content[1] as { uri: string }).uri)).toEqual({
      server: 'my server',
      name: 'ui://dashboard/view.html',
    });
  });

  it('returns a result that names no resource as it is', () => {
    const result: CallToolResult = { content: [{ type: 'text', text: 'hi' }] };
    expect(namespacedResult(result, 'a', ns)).toBe(result);
  });
});

describe('the extension declared upstream', () => {
  it('is declared only by a front end that passes Apps on', () => {
    expect(capabilitiesFor({ apps: true }).extensions).toEqual({ [UI]: { mimeTypes: [APP_MIME] } });
    expect(capabilitiesFor({}).extensions).toBeUndefined();
  });

  it('rides a 2026-07-28 request only when the client behind it shows Apps', () => {
    const declared = capabilitiesFor({ apps: true });
    const shows = { extensions: { [UI]: { mimeTypes: [APP_MIME] } } };
    const envelope = (inputCapabilities: object, era: 'modern' | 'legacy' = 'modern') =>
      requestMeta({ inputCapabilities }, { logLevel: undefined, era, declared })._meta?.[
        'io.modelcontextprotocol/clientCapabilities'
      ] as { extensions?: unknown } | undefined;
    expect(envelope(shows)?.extensions).toEqual(shows.extensions);
    expect(envelope({})?.extensions).toBeUndefined();
    expect(envelope(shows, 'legacy')).toBeUndefined();
    // A connection that never declared it passes on nothing of it, whatever the client shows.
    const none = requestMeta(
      { inputCapabilities: shows },
      { logLevel: undefined, era: 'modern', declared: capabilitiesFor({}) },
    )._meta?.['io.modelcontextprotocol/clientCapabilities'] as { extensions?: unknown };
    expect(none.extensions).toBeUndefined();
  });
});
