import { describe, expect, it } from 'vitest';
import pkg from '../../../../package.json' with { type: 'json' };
import { ExitCode, exitCodeFor } from '../../../../src/cli/io/exit-codes.js';
import { ErrorCode } from '../../../../src/errors/index.js';
import { VERSION } from '../../../../src/version.js';

describe('exit codes', () => {
  it('map every error code to the documented contract', () => {
    for (const code of Object.values(ErrorCode)) expect(exitCodeFor(code)).toBeTypeOf('number');
    expect(exitCodeFor(ErrorCode.Usage)).toBe(ExitCode.Usage);
    expect(exitCodeFor(ErrorCode.ConfigInvalidJson)).toBe(2);
    expect(exitCodeFor(ErrorCode.ServerCrashed)).toBe(4);
    expect(exitCodeFor(ErrorCode.ConnectTimeout)).toBe(4);
    expect(exitCodeFor(ErrorCode.ToolError)).toBe(5);
    expect(exitCodeFor(ErrorCode.Cancelled)).toBe(130);
  });

  it('VERSION matches package.json', () => {
    expect(VERSION).toBe(pkg.version);
  });
});
