/**
 * Issue 41, item 4, through the built `mcpx serve` with the SDK `Client` in both eras: an
 * upstream's MCP App (the test server's, `MCPX_TEST_APPS=1`) reaches the gateway's client with
 * its tool's `ui://` link and its resource namespaced per upstream, scheme kept, and its
 * `_meta` (visibility, CSP, permissions) and MIME type intact; the client reads the page through
 * the gateway; an app-only tool stays callable; the extension is declared both ways.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const UI = 'io.modelcontextprotocol/ui';
const APP_MIME = 'text/html;profile=mcp-app';
const SHOWS_APPS = { extensions: { [UI]: { mimeTypes: [APP_MIME] } } };

let world: GatewayWorld;

beforeAll(async () => {
  const app = { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } };
  world = await gatewayWorld({ permission: 'yolo', mcpServers: { apps: app, other: app } });
});
afterEach(async () => {
  await world.stopAll();
});
afterAll(async () => {
  await world?.close();
});

const byName = (tools: readonly Tool[], name: string): Tool | undefined => tools.find((t) => t.name === name);

describe.each(['legacy', 'modern'] as const)('MCP Apps through mcpx serve, a %s client', (era) => {
  it('names each upstream’s App in its own ui:// space, with the tools’ _meta otherwise intact', async () => {
    const client = await world.client((await world.serve()).url, era, { capabilities: SHOWS_APPS });
    expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({});
    const { tools } = await client.listTools();
    expect(byName(tools, 'apps__show_dashboard')?._meta).toEqual({
      ui: { resourceUri: 'ui://apps/dashboard/view.html', visibility: ['model', 'app'] },
      'ui/resourceUri': 'ui://apps/dashboard/view.html',
    });
    expect(byName(tools, 'other__show_dashboard')?._meta?.ui).toEqual({
      resourceUri: 'ui://other/dashboard/view.html',
      visibility: ['model', 'app'],
    });
    // The app-only tool is listed for a client that shows Apps, its visibility as the server wrote it.
    expect(byName(tools, 'apps__refresh_dashboard')?._meta).toEqual({
      ui: { resourceUri: 'ui://apps/dashboard/view.html', visibility: ['app'] },
    });
    expect(byName(tools, 'apps__model_only_fact')?._meta).toEqual({ ui: { visibility: ['model'] } });
  });

  it('lists and reads the App’s page under its namespaced ui:// URI, MIME type and _meta intact', async () => {
    const client = await world.client((await world.serve()).url, era, { capabilities: SHOWS_APPS });
    const { resources } = await client.listResources();
    const listed = resources.find((r) => r.uri === 'ui://apps/dashboard/view.html');
    expect(listed).toMatchObject({ mimeType: APP_MIME, _meta: { ui: { csp: { connectDomains: [] } } } });
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining([
        'ui://other/dashboard/view.html',
        'ui://apps/hostile/reach-parent.html',
        'ui://apps/hostile/flood.html',
      ]),
    );

    const read = await client.readResource({ uri: 'ui://apps/dashboard/view.html' });
    expect(read.contents).toHaveLength(1);
    const [page] = read.contents;
    expect(page).toMatchObject({ uri: 'ui://apps/dashboard/view.html', mimeType: APP_MIME });
    expect(page?._meta).toEqual({
      ui: {
        csp: { connectDomains: [], resourceDomains: [] },
        permissions: { clipboardWrite: {} },
        prefersBorder: true,
      },
    });
    expect((page as { text?: string }).text).toMatch(/^<!DOCTYPE html>[\s\S]*ui\/initialize/);

    const hostile = await client.readResource({ uri: 'ui://other/hostile/forbidden-script.html' });
    expect(hostile.contents[0]).toMatchObject({
      uri: 'ui://other/hostile/forbidden-script.html',
      mimeType: APP_MIME,
      _meta: { ui: { csp: { resourceDomains: ['https://allowed.example.invalid'] } } },
    });
  });

  it('namespaces the resource link of a call’s result, passes on that the client shows Apps, and calls the app-only tool', async () => {
    const client = await world.client((await world.serve()).url, era, { capabilities: SHOWS_APPS });
    const shown = await client.callTool({ name: 'apps__show_dashboard', arguments: { title: 'Fleet' } });
    expect(shown.isError).toBeFalsy();
    expect(firstText(shown)).toBe('Fleet: 3 servers up, 0 errors; client shows apps: yes');
    expect(shown.content).toContainEqual({
      type: 'resource_link',
      uri: 'ui://apps/dashboard/view.html',
      name: 'dashboard',
      mimeType: APP_MIME,
    });
    // The link it gives reads back through the gateway.
    const linked = (shown.content as { type: string; uri?: string }[]).find(
      (c) => c.type === 'resource_link',
    );
    const read = await client.readResource({ uri: linked?.uri as string });
    expect(read.contents[0]?.mimeType).toBe(APP_MIME);
    // The App's own button: hidden from models by the host, still callable through the gateway.
    const refreshed = await client.callTool({ name: 'apps__refresh_dashboard', arguments: {} });
    expect(firstText(refreshed)).toMatch(/^refreshed \d+$/);
  });

  it('keeps the app-only tool from a client that shows no Apps, and the rest as they are', async () => {
    const client = await world.client((await world.serve()).url, era);
    const { tools } = await client.listTools();
    expect(byName(tools, 'apps__refresh_dashboard')).toBeUndefined();
    expect(byName(tools, 'apps__show_dashboard')?._meta?.ui).toEqual({
      resourceUri: 'ui://apps/dashboard/view.html',
      visibility: ['model', 'app'],
    });
    expect(byName(tools, 'apps__model_only_fact')).toBeDefined();
    // The upstream speaks 2026-07-28 to mcpx: each request says what its own client shows.
    const shown = await client.callTool({ name: 'apps__show_dashboard', arguments: {} });
    expect(firstText(shown)).toBe('Dashboard: 3 servers up, 0 errors; client shows apps: no');
  });

  it('re-serves one server unchanged behind --server: its own ui:// URIs and its declared extension', async () => {
    const client = await world.client((await world.serve(['--server', 'apps'])).url, era, {
      capabilities: SHOWS_APPS,
    });
    expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({});
    const { tools } = await client.listTools();
    expect(byName(tools, 'show_dashboard')?._meta?.ui).toEqual({
      resourceUri: 'ui://dashboard/view.html',
      visibility: ['model', 'app'],
    });
    const read = await client.readResource({ uri: 'ui://dashboard/view.html' });
    expect(read.contents[0]).toMatchObject({ uri: 'ui://dashboard/view.html', mimeType: APP_MIME });
  });
});
