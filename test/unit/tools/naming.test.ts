import { describe, expect, it } from 'vitest';
import { assignToolNames } from '../../../src/tools/naming.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('assignToolNames', () => {
  it('prefixes with the server: mcp_<server>_<tool>', () => {
    const names = assignToolNames([{ source: 'fs', tool: 'read_file' }]);
    expect([...names.keys()]).toEqual(['mcp_fs_read_file']);
    expect(names.get('mcp_fs_read_file')).toEqual({ source: 'fs', tool: 'read_file' });
  });

  it('offers <server>.<tool> as an option', () => {
    expect([...assignToolNames([{ source: 'fs', tool: 'read' }], 'dotted').keys()]).toEqual(['fs.read']);
  });

  it('sanitizes to the provider alphabet and keeps names unique with a stable hash on collision', () => {
    const tools = [
      { source: 'web', tool: 'get page' },
      { source: 'web', tool: 'get/page' },
      { source: 'web', tool: 'get_page' },
    ];
    const names = [...assignToolNames(tools).keys()];
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(VALID);
    // The one whose name needed no change keeps it; the sanitized ones get a hash.
    expect(names).toContain('mcp_web_get_page');
    expect(names.filter((n) => /^mcp_web_get_page_[0-9a-f]{6}$/.test(n))).toHaveLength(2);
    // Deterministic: the same set yields the same names, whatever the order.
    expect([...assignToolNames([...tools].reverse()).keys()].sort()).toEqual([...names].sort());
  });

  it('shortens an overlong name to 64 characters with a hash', () => {
    const long = 'x'.repeat(100);
    const [name] = [...assignToolNames([{ source: 'srv', tool: long }]).keys()];
    expect(name).toMatch(VALID);
    expect(name?.length).toBe(64);
    const [other] = [...assignToolNames([{ source: 'srv', tool: `${long}y` }]).keys()];
    expect(other).not.toBe(name);
  });

  it('never lets Unicode through', () => {
    const [name] = [...assignToolNames([{ source: 'ümlaut', tool: 'naïve\u202etool' }]).keys()];
    expect(name).toMatch(VALID);
  });

  it('keeps two servers with the same tool apart, even when their names sanitize alike', () => {
    const names = assignToolNames([
      { source: 'git.hub', tool: 'search' },
      { source: 'git_hub', tool: 'search' },
      { source: 'jira', tool: 'search' },
    ]);
    expect(names.size).toBe(3);
    expect(names.get('mcp_jira_search')).toEqual({ source: 'jira', tool: 'search' });
    expect(names.get('mcp_git_hub_search')).toEqual({ source: 'git_hub', tool: 'search' });
    const dotted = [...names].find(([, q]) => q.source === 'git.hub')?.[0];
    expect(dotted).toMatch(/^mcp_git_hub_search_[0-9a-f]{6}$/);
  });

  it('hashes every name of a group that collides without sanitizing, whatever the order', () => {
    const tools = [
      { source: 'git', tool: 'hub_search' },
      { source: 'git_hub', tool: 'search' },
    ];
    const forward = assignToolNames(tools);
    const backward = assignToolNames([...tools].reverse());
    expect(forward.size).toBe(2);
    for (const name of forward.keys()) expect(name).toMatch(/^mcp_git_hub_search_[0-9a-f]{6}$/);
    expect([...backward].sort()).toEqual([...forward].sort());
    // The map keeps the given order.
    expect([...forward.values()]).toEqual(tools);
  });

  it('drops hidden characters and accents instead of turning them into underscores', () => {
    const names = assignToolNames([
      { source: 'fs', tool: 'read\u200b_file' },
      { source: 'café', tool: 'naïve\u202e' },
    ]);
    expect([...names.keys()]).toEqual(['mcp_fs_read_file', 'mcp_cafe_naive']);
  });

  it('gives the same tool listed twice two names', () => {
    const names = assignToolNames([
      { source: 's', tool: 't' },
      { source: 's', tool: 't' },
    ]);
    expect(names.size).toBe(2);
    for (const name of names.keys()) expect(name).toMatch(VALID);
  });

  it('in the dotted style allows dots and nothing else outside the alphabet', () => {
    const names = assignToolNames(
      [
        { source: 'a.b', tool: 'c' },
        { source: 'a', tool: 'b.c' },
        { source: 'web', tool: 'get page' },
      ],
      'dotted',
    );
    expect(names.size).toBe(3);
    for (const name of names.keys()) expect(name).toMatch(/^[a-zA-Z0-9_.-]{1,64}$/);
    expect([...names.keys()]).toContain('web.get_page');
  });

  it('is stable across runs: the hash depends only on the server and tool', () => {
    const once = [...assignToolNames([{ source: 'srv', tool: 'x'.repeat(80) }]).keys()];
    const again = [...assignToolNames([{ source: 'srv', tool: 'x'.repeat(80) }]).keys()];
    expect(once).toEqual(again);
  });
});
