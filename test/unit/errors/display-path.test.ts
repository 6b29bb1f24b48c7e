import { describe, expect, it } from 'vitest';
import {
  displayPath,
  displayPaths,
  ErrorCode,
  errorToJson,
  formatError,
  formatOrigin,
  McpxError,
} from '../../../src/errors/index.js';

const home = '/home/ada';

describe('displayPath', () => {
  it('shows a path inside the home as ~/…, and the home itself as ~', () => {
    expect(displayPath('/home/ada/.mcpx/mcp.json', home)).toBe('~/.mcpx/mcp.json');
    expect(displayPath('/home/ada/.mcpx/mcp.json', '/home/ada/')).toBe('~/.mcpx/mcp.json');
    expect(displayPath('/home/ada', home)).toBe('~');
  });

  it('leaves every other path alone: outside, merely sharing a prefix, or no home to shorten to', () => {
    expect(displayPath('/home/ada2/mcp.json', home)).toBe('/home/ada2/mcp.json');
    expect(displayPath('/etc/mcp.json', home)).toBe('/etc/mcp.json');
    expect(displayPath('/srv/home/ada/x', home)).toBe('/srv/home/ada/x');
    expect(displayPath('/home/ada/x', undefined)).toBe('/home/ada/x');
    expect(displayPath('/home/ada/x', '/')).toBe('/home/ada/x');
  });

  it('shortens a Windows home the same way', () => {
    expect(displayPath('C:\\Users\\ada\\.mcpx\\mcp.json', 'C:\\Users\\ada')).toBe('~\\.mcpx\\mcp.json');
    expect(displayPath('C:\\Users\\ada\\x', 'C:\\')).toBe('C:\\Users\\ada\\x');
  });
});

describe('displayPaths', () => {
  it('shortens every home path a message names, wherever it stands as a word', () => {
    expect(
      displayPaths(
        'cannot read config file /home/ada/.mcpx/mcp.json: EACCES (/home/ada/repo/.mcp.json:3:5 (project config))',
        home,
      ),
    ).toBe('cannot read config file ~/.mcpx/mcp.json: EACCES (~/repo/.mcp.json:3:5 (project config))');
    expect(displayPaths('  config     /home/ada/.mcpx/mcp.json\nin /home/ada.', home)).toBe(
      '  config     ~/.mcpx/mcp.json\nin ~.',
    );
  });

  it('keeps a quoted path or one after = whole: a shell would not expand ~ there', () => {
    const fix = "remove it (rm '/home/ada/.mcpx/run/x') and run again; --config=/home/ada/mcp.json";
    expect(displayPaths(fix, home)).toBe(fix);
    expect(displayPaths('"/home/ada/x"', home)).toBe('"/home/ada/x"');
  });

  it('leaves paths that only share the prefix, or sit inside another path', () => {
    const text = 'read /home/ada2/mcp.json and /srv/home/ada/x and /home/ada.bak/y';
    expect(displayPaths(text, home)).toBe(text);
  });
});

describe('the formatter with a home', () => {
  const error = new McpxError(
    ErrorCode.ConfigUnreadable,
    'cannot read config file /home/ada/.mcpx/mcp.json: permission denied',
    {
      origin: { layer: 'global', file: '/home/ada/.mcpx/mcp.json', line: 2 },
      fixes: ["make it readable: chmod u+r '/home/ada/.mcpx/mcp.json'"],
    },
  );

  it('shows ~/ in the line and the full story, and absolute paths without a home', () => {
    expect(formatError(error, { home })).toBe(
      "error: cannot read config file ~/.mcpx/mcp.json: permission denied (global config) — make it readable: chmod u+r '/home/ada/.mcpx/mcp.json'",
    );
    expect(formatError(error, { home, verbose: true })).toContain(
      '  config     ~/.mcpx/mcp.json:2 (global config)',
    );
    expect(formatError(error)).toContain('cannot read config file /home/ada/.mcpx/mcp.json');
    expect(formatOrigin({ layer: 'project', file: '/home/ada/r/.mcp.json', line: 1 }, home)).toBe(
      '~/r/.mcp.json:1 (project config)',
    );
  });

  it('keeps JSON exact: scripts need real paths', () => {
    expect(errorToJson(error).error).toMatchObject({
      message: 'cannot read config file /home/ada/.mcpx/mcp.json: permission denied',
      configFile: '/home/ada/.mcpx/mcp.json',
    });
  });
});
