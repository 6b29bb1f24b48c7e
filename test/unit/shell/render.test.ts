import { describe, expect, it } from 'vitest';
import { renderToolHelp, renderToolList } from '../../../src/shell/render.js';

describe('renderToolHelp', () => {
  it('shows unions, array items, enums, defaults and an example of the required keys', () => {
    const text = renderToolHelp('fs', {
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
    });
    expect(text).toBe(
      [
        '@fs search — Find files',
        'Parameters:',
        '  query  (string, required)  What to find',
        '  paths  (array of string, optional)',
        '  limit  (integer | null, optional, default 10)',
        '  mode  (string, required, one of "glob", "regex")',
        'Example: @fs search query=text mode=glob',
        '',
      ].join('\n'),
    );
  });

  it('never lets a server put escape sequences on the screen', () => {
    const tool = {
      name: 'evil\u001b[2J',
      description: 'x\u001b]0;title\u0007',
      inputSchema: { type: 'object' as const },
    };
    expect(renderToolHelp('s', tool)).not.toContain('\u001b');
    expect(renderToolList('s', [tool], 80)).not.toContain('\u001b');
  });
});
