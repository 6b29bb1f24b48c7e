import { describe, expect, it } from 'vitest';
import { JsonStderr } from '../../../../src/cli/io/json-stderr.js';
import { ErrorCode, McpxError } from '../../../../src/errors/index.js';

function collect() {
  let written = '';
  const json = new JsonStderr({ write: (chunk: string) => (written += chunk) });
  return { json, written: () => written };
}

describe('JsonStderr', () => {
  it('writes nothing when there is nothing to say', () => {
    const { json, written } = collect();
    json.flush();
    expect(written()).toBe('');
  });

  it('gathers text written in pieces into warnings, and errors into one object, once', () => {
    const { json, written } = collect();
    json.stream.write('skipped server ');
    json.stream.write("'x'\r\n\nwarning: second");
    json.error(new McpxError(ErrorCode.ServerCrashed, 'a crashed', { server: 'a' }));
    json.error(new McpxError(ErrorCode.ConnectTimeout, 'b hung', { server: 'b' }));
    json.flush();
    json.flush();
    const lines = written().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      error: { code: 'SERVER_CRASHED', message: 'a crashed', server: 'a' },
      errors: [
        { code: 'SERVER_CRASHED', message: 'a crashed', server: 'a' },
        { code: 'CONNECT_TIMEOUT', message: 'b hung', server: 'b' },
      ],
      warnings: ["skipped server 'x'", 'warning: second'],
    });
  });

  it('escapes terminal controls a server put in a notice', () => {
    const { json, written } = collect();
    json.stream.write('bad \u001b]52;c;AAAA\u0007 name\n');
    json.flush();
    expect(written()).not.toContain('\u001b');
    expect(JSON.parse(written()).warnings).toEqual(['bad \u001b]52;c;AAAA\u0007 name']);
  });

  it('for a command that runs until stopped, writes what it gathered and then each notice as its own line', () => {
    const { json, written } = collect();
    json.stream.write('before\n');
    json.writeEachLine();
    json.stream.write('mcpx serve: listening on http://127.0.0.1:1/mcp\n');
    const listening = written();
    json.error(new McpxError(ErrorCode.ServerCrashed, 'a crashed', { server: 'a' }));
    json.flush();
    expect(
      listening
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ warning: 'before' }, { warning: 'mcpx serve: listening on http://127.0.0.1:1/mcp' }]);
    expect(JSON.parse(written().trim().split('\n')[2] ?? '')).toEqual({
      error: { code: 'SERVER_CRASHED', message: 'a crashed', server: 'a' },
    });
  });
});
