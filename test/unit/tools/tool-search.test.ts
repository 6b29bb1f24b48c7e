import { describe, expect, it } from 'vitest';
import type { RoutedTool } from '../../../src/tools/router.js';
import { searchTools, tokenize } from '../../../src/tools/tool-search.js';
import { inProcessToolSource } from '../../../src/tools/tool-source.js';

const source = inProcessToolSource('s', []);
const tool = (name: string, description: string): RoutedTool => ({
  name: `mcp_s_${name}`,
  description,
  parameters: { type: 'object' },
  source,
  tool: { name, description, inputSchema: { type: 'object' } },
});

const tools = [
  tool('read_file', 'Read the complete contents of a file from the file system'),
  tool('write_file', 'Create a new file or overwrite an existing file'),
  tool('list_directory', 'List files and directories in a path'),
  tool('search_issues', 'Search GitHub issues by query'),
  tool('createPullRequest', 'Open a pull request on GitHub'),
];

describe('searchTools', () => {
  it('splits snake_case and camelCase', () => {
    expect(tokenize('createPullRequest read_file')).toEqual([
      'createpullrequest',
      'create',
      'pull',
      'request',
      'read',
      'file',
    ]);
  });

  it('ranks by words over names and descriptions, names weighing more', () => {
    expect(searchTools(tools, 'read a file')[0]?.tool.tool.name).toBe('read_file');
    expect(searchTools(tools, 'pull request')[0]?.tool.tool.name).toBe('createPullRequest');
    expect(
      searchTools(tools, 'github')
        .map((h) => h.tool.tool.name)
        .sort(),
    ).toEqual(['createPullRequest', 'search_issues']);
    expect(searchTools(tools, 'file', 2)).toHaveLength(2);
    expect(searchTools(tools, 'weather')).toEqual([]);
  });

  it('weighs a word in the name above the same word in a description', () => {
    const set = [
      tool('get_forecast', 'Tomorrow, from the weather service'),
      tool('weather_now', 'Conditions at a place right now'),
    ];
    expect(searchTools(set, 'weather').map((h) => h.tool.tool.name)).toEqual(['weather_now', 'get_forecast']);
  });

  it('splits kebab-case names and ignores case and punctuation in the query', () => {
    const set = [tool('get-tiny-image', 'Returns a small picture'), tool('get-env', 'Environment variables')];
    expect(searchTools(set, 'Tiny IMAGE!')[0]?.tool.tool.name).toBe('get-tiny-image');
    expect(searchTools(set, '')).toEqual([]);
  });
});
