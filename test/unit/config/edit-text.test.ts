import { describe, expect, it } from 'vitest';
import { editConfigText } from '../../../src/config/edit-text.js';
import { loadConfigText } from '../../../src/config/load-file.js';

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

  it('takes other hosts\' "disabled" as the switch: enable removes it, disable writes mcpx\'s own', () => {
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
