/**
 * `claimConsole()` changes the whole process (this file runs in its own worker): a long-lived
 * front end drops the SDK's console output without a per-call capture scope.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  claimConsole,
  type SdkDiagnostic,
  withSdkDiagnostics,
} from '../../../src/transport/sdk-diagnostics.js';

describe('claimConsole', () => {
  it('drops console output outside a scope, and still hands a handler its server’s diagnostics', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const before = withSdkDiagnostics('quiet', undefined, () => {
      console.warn('dropped by the scope');
      return 'ran';
    });
    expect(before).toBe('ran');
    console.warn('printed: the process is not claimed yet');
    expect(warn).toHaveBeenCalledTimes(1);

    claimConsole();
    console.warn('dropped: outside any scope, in a claimed process');
    expect(withSdkDiagnostics('quiet', undefined, () => 'ran unscoped')).toBe('ran unscoped');
    const diagnostics: SdkDiagnostic[] = [];
    await withSdkDiagnostics(
      'loud',
      (d) => diagnostics.push(d),
      async () => {
        await Promise.resolve();
        console.warn('said by the SDK for %s', 'loud');
      },
    );
    expect(warn).toHaveBeenCalledTimes(1);
    expect(diagnostics).toEqual([{ server: 'loud', level: 'warn', message: 'said by the SDK for loud' }]);
  });
});
