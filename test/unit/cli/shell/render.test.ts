import { describe, expect, it } from 'vitest';
import { renderToolHelp, renderToolList } from '../../../../src/cli/shell/render.js';

describe('renderToolHelp', () => {
  it('is the full signature of mcpx tools server.tool, written as console calls', () => {
    const text = renderToolHelp(
      'fs',
      {
        name: 'search',
        description: 'Find files',
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to find' },
            paths: { type: 'array', items: { type: 'string' } },
            limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: 10 },
            mode: { type: 'string', enum: ['glob', 'regex'] },
          },
          required: ['query', 'mode'],
        },
      },
      100,
    );
    expect(text).toContain('Usage: @fs search query=<string> [paths=<string[]>]');
    expect(text).toMatch(/limit\s+integer \| null\s+\(optional, default 10\)/);
    expect(text).toMatch(/mode\s+"glob" \| "regex"\s+\(required\)/);
    expect(text).toContain('What to find');
    expect(text).toContain('Example:\n  @fs search query=text mode=glob');
  });

  it('never lets a server put escape sequences on the screen', () => {
    const tool = {
      name: 'evil\u001b[2J',
      description: 'x\u001b]0;title\u0007',
      inputSchema: { type: 'object' as const },
    };
    expect(renderToolHelp('s', tool, 80)).not.toContain('\u001b');
    expect(renderToolList('s', [tool], 80)).not.toContain('\u001b');
  });
});
