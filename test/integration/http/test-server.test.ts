import { afterEach, describe, expect, it } from 'vitest';
import { Resources, remoteServer, textOf } from './helpers.js';

const res = new Resources();
afterEach(() => res.closeAll());

describe.each(['modern', 'legacy', 'both', 'sse'] as const)('HTTP test server, %s era', (era) => {
  it('lists and calls tools, reads a resource, gets a prompt', async () => {
    const server = await res.server({ era });
    const c = await res.connect(remoteServer(`t-${era}`, server.url));
    expect(c.era).toBe(era === 'modern' || era === 'both' ? 'modern' : 'legacy');
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const result = await c.callTool('add', { a: 2, b: 3 });
    expect(textOf(result)).toContain('5');
    const read = await c.readResource('test://readme.txt');
    expect(JSON.stringify(read.contents)).toContain('mcpx');
    const prompt = await c.getPrompt('greeting', { name: 'Ada' });
    expect(JSON.stringify(prompt.messages)).toContain('Ada');
  });

  it('reports progress', async () => {
    const server = await res.server({ era });
    const c = await res.connect(remoteServer(`p-${era}`, server.url));
    const seen: number[] = [];
    const result = await c.callTool(
      'slow_operation',
      { steps: 3, delay_ms: 10 },
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(textOf(result)).toContain('completed 3 steps');
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('MCPX_HTTP_FAULT', () => {
  it('reads the real-world misbehaviour modes', async () => {
    const { parseHttpFaults } = await import('../../../src/testing/http-test-server.js');
    expect(
      parseHttpFaults('slow-first:5000,rate-limit:2,drop-listen:5,header-mismatch,sse-drop-after:3', {
        MCPX_HTTP_RETRY_AFTER: '1',
      }),
    ).toEqual({
      firstAnswerDelayMs: 5000,
      rateLimited: 2,
      dropListen: 5,
      modernRefusal: 'header-mismatch',
      sseDropAfter: 3,
      retryAfterSeconds: 1,
    });
    expect(parseHttpFaults('future-only').modernRefusal).toBe('future-only');
    expect(() => parseHttpFaults('drop-listen:x')).toThrow(/whole number/);
  });
});
