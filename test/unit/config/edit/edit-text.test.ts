import { describe, expect, it } from 'vitest';
import { editConfigText } from '../../../../src/config/edit/edit-text.js';
import { loadConfigText } from '../../../../src/config/file/load-file.js';

const FILE = '/home/me/.mcpx/mcp.json';
const edit = (text: string, change: Parameters<typeof editConfigText>[3]) =>
  editConfigText(text, FILE, 'global', change).text;
const names = (text: string) => loadConfigText(text, FILE, 'global').drafts.map((d) => d.base.name);

describe('editConfigText', () => {
  it('starts an empty file as {"mcpServers": {...}}', () => {
    const text = edit('', { kind: 'add', name: 'fs', entry: { command: 'npx', args: ['-y', 'fs'] } });
    expect(JSON.parse(text)).toEqual({ mcpServers: { fs: { command: 'npx', args: ['-y', 'fs'] } } });
  });

  it('keeps tabs and CRLF line ends in what it inserts', () => {
    const source = '{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "x"}\r\n\t}\r\n}\r\n';
    const text = edit(source, { kind: 'add', name: 'b', entry: { command: 'y' } });
    expect(text).toBe(
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "x"},\r\n\t\t"b": {\r\n\t\t\t"command": "y"\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
    expect(edit(text, { kind: 'remove', name: 'b' })).toBe(source);
  });

  it('adds to a "servers" section when the file uses one, and to an array of named servers', () => {
    const object = edit('{\n  "servers": {\n    "a": {"command": "x"}\n  }\n}\n', {
      kind: 'add',
      name: 'b',
      entry: { url: 'https://example.com/mcp' },
    });
    expect(JSON.parse(object)).toEqual({
      servers: { a: { command: 'x' }, b: { url: 'https://example.com/mcp' } },
    });
    const array = edit('{\n  "servers": [\n    {"name": "a", "command": "x"}\n  ]\n}\n', {
      kind: 'add',
      name: 'b',
      entry: { command: 'y' },
    });
    expect(JSON.parse(array)).toEqual({
      servers: [
        { name: 'a', command: 'x' },
        { name: 'b', command: 'y' },
      ],
    });
    expect(names(edit(array, { kind: 'remove', name: 'a' }))).toEqual(['b']);
  });

  it('adds mcpServers beside other top-level keys, which stay as written', () => {
    const source = '{\n  // only a setting so far\n  "permission": "trusted"\n}\n';
    const text = edit(source, { kind: 'add', name: 'a', entry: { command: 'x' } });
    expect(text).toBe(
      '{\n  // only a setting so far\n  "permission": "trusted",\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n',
    );
  });

  it('takes other client apps\' "disabled" as the switch: enable removes it, disable writes mcpx\'s own', () => {
    const source =
      '{\n  "mcpServers": {\n    "a": {\n      "command": "x",\n      "disabled": true\n    }\n  }\n}\n';
    expect(JSON.parse(edit(source, { kind: 'enable', name: 'a' }))).toEqual({
      mcpServers: { a: { command: 'x' } },
    });
    expect(JSON.parse(edit(source, { kind: 'disable', name: 'a' }))).toEqual({
      mcpServers: { a: { command: 'x', enabled: false } },
    });
  });

  it('refuses what would not load, and throws the loader’s own problem', () => {
    const source = '{"mcpServers": {"a": {"command": "x"}}}';
    expect(() => edit(source, { kind: 'add', name: 'b', entry: {} })).toThrow(
      /would not be valid after this change, so it was not changed/,
    );
    expect(() => edit('{"mcpServers": {"a": {"command": "x"}}', { kind: 'remove', name: 'a' })).toThrow(
      /is not valid as it is/,
    );
  });

  it('a second server of that name is refused without overwrite, replaced with it', () => {
    const source = '{"mcpServers": {"a": {"command": "x"}}}';
    expect(() => edit(source, { kind: 'add', name: 'a', entry: { command: 'y' } })).toThrow(/already in/);
    const replaced = editConfigText(source, FILE, 'global', {
      kind: 'add',
      name: 'a',
      entry: { command: 'y' },
      overwrite: true,
    });
    expect(replaced.outcome).toBe('replaced');
    expect(JSON.parse(replaced.text)).toEqual({ mcpServers: { a: { command: 'y' } } });
  });
});

describe('editConfigText: tools of one server (config enable|disable <server> <tool…>)', () => {
  const tools = (kind: 'enable' | 'disable', name: string, list: string[]) => ({ kind, name, tools: list });

  it('writes disabled_tools, keeping comments, and takes it out again once empty', () => {
    const source = '{\n  "mcpServers": {\n    // mine\n    "gh": {"command": "x"} // trailing\n  }\n}\n';
    const off = edit(source, tools('disable', 'gh', ['create_issue', 'create_issue', 'delete']));
    expect(off).toContain('// mine');
    expect(off).toContain('// trailing');
    expect(loadConfigText(off, FILE, 'global').drafts[0]?.base.denyTools).toEqual(['create_issue', 'delete']);
    expect(edit(off, tools('disable', 'gh', ['delete']))).toBe(off);
    const back = edit(edit(off, tools('enable', 'gh', ['create_issue'])), tools('enable', 'gh', ['delete']));
    expect(back).toBe(source);
  });

  it("edits the allow list in the spelling the entry uses (Gemini's includeTools), in an array of servers", () => {
    const source = '{"servers": [{"name": "gh", "command": "x", "includeTools": ["a", "b"]}]}';
    const off = edit(source, tools('disable', 'gh', ['b']));
    expect(JSON.parse(off).servers[0]).toEqual({ name: 'gh', command: 'x', includeTools: ['a'] });
    const on = edit(off, tools('enable', 'gh', ['c']));
    expect(JSON.parse(on).servers[0].includeTools).toEqual(['a', 'c']);
  });

  it('switches tools of the built-in demo off nowhere: it has no entry to hold them', () => {
    expect(() => edit('{"mcpServers": {}}', tools('disable', 'demo', ['echo']))).toThrow(
      /no server named 'demo'/,
    );
  });
});
