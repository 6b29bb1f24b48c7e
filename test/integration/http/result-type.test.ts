import { afterEach, describe, expect, it } from 'vitest';
import { Resources, remoteServer, textOf } from './helpers.js';

const resources = new Resources();
afterEach(() => resources.closeAll());

describe('a 2026-07-28 server that leaves resultType out of its results', () => {
  for (const responseMode of ['json', 'sse'] as const) {
    it(`is answered as complete (${responseMode} responses)`, async () => {
      const server = await resources.server({
        era: 'modern',
        responseMode,
        faults: { omitResultType: true },
      });
      const c = await resources.connect(remoteServer('bare', server.url, { protocol: 'modern' }));
      expect(c.era).toBe('modern');
      const tools = await c.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      expect(textOf(await c.callTool('echo', { message: 'no resultType' }))).toBe('no resultType');
      const sum = await c.callTool('add', { a: 1, b: 2 });
      expect(sum.structuredContent).toEqual({ sum: 3 });
      const read = await c.readResource('test://readme.txt');
      expect(read.contents[0]?.uri).toBe('test://readme.txt');
      expect(await c.ping()).toBeGreaterThanOrEqual(0);
    }, 30_000);
  }

  it('delivers a tool error result without resultType as the tool error it is', async () => {
    const server = await resources.server({
      era: 'modern',
      responseMode: 'json',
      faults: { omitResultType: true },
    });
    const c = await resources.connect(remoteServer('bare', server.url, { protocol: 'modern' }));
    const bad = await c.callTool('add', { a: 'one' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('Invalid arguments for add');
  }, 30_000);
});
