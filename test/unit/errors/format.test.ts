import { describe, expect, it } from 'vitest';
import { ErrorCode, errorToJson, formatError, McpxError, toMcpxError } from '../../../src/errors/index.js';

const crash = new McpxError(ErrorCode.ServerCrashed, "server 'db' exited with code 1", {
  server: 'db',
  origin: { layer: 'project', file: '/repo/.mcp.json', line: 4 },
  command: 'npx -y server-postgres',
  exitCode: 1,
  stderrTail: ['Error: connect ECONNREFUSED 127.0.0.1:5432'],
  causes: ['the database is not running'],
  fixes: ['start PostgreSQL, then try again'],
});

describe('formatError', () => {
  it('renders one line with server, file and the first fix', () => {
    const line = formatError(crash);
    expect(line).toBe(
      "error: server 'db' exited with code 1 (/repo/.mcp.json:4 (project config)) — start PostgreSQL, then try again",
    );
    expect(line).not.toContain('\n');
  });

  it('renders the full story with --verbose', () => {
    const text = formatError(crash, { verbose: true });
    expect(text).toContain('error [SERVER_CRASHED]');
    expect(text).toMatch(/server\s+db/);
    expect(text).toContain('/repo/.mcp.json:4 (project config)');
    expect(text).toMatch(/exit code\s+1/);
    expect(text).toContain('| Error: connect ECONNREFUSED 127.0.0.1:5432');
    expect(text).toContain('- the database is not running');
    expect(text).toContain('- start PostgreSQL, then try again');
    expect(text).not.toContain('    at '); // no stack unless asked
  });

  it('includes the stack only when asked', () => {
    expect(formatError(crash, { verbose: true, stack: true })).toContain('at ');
  });

  it('gives JSON with a stable code and flattened origin', () => {
    const json = errorToJson(crash);
    expect(json.error).toMatchObject({
      code: 'SERVER_CRASHED',
      server: 'db',
      configFile: '/repo/.mcp.json',
      layer: 'project',
      exitCode: 1,
      fixes: ['start PostgreSQL, then try again'],
    });
  });

  it('wraps foreign errors as INTERNAL without losing the message', () => {
    const wrapped = toMcpxError(new TypeError('boom'));
    expect(wrapped.code).toBe(ErrorCode.Internal);
    expect(wrapped.message).toContain('boom');
    expect(wrapped.cause).toBeInstanceOf(TypeError);
  });

  it('withContext adds fields and keeps code, fixes and cause', () => {
    const base = new McpxError(ErrorCode.RequestTimeout, 'slow', { fixes: ['wait'], cause: new Error('x') });
    const more = base.withContext({ server: 's' });
    expect(more.code).toBe(ErrorCode.RequestTimeout);
    expect(more.context.server).toBe('s');
    expect(more.fixes).toEqual(['wait']);
    expect((more.cause as Error).message).toBe('x');
  });
});
