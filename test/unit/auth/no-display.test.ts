import { describe, expect, it } from 'vitest';
import { hasNoDisplay } from '../../../src/auth/device-sign-in.js';

describe('hasNoDisplay: when mcpx auth signs in with a device code by itself', () => {
  it('on Linux and the BSDs, when neither DISPLAY nor WAYLAND_DISPLAY is set (or they are empty)', () => {
    for (const platform of ['linux', 'freebsd', 'openbsd'] as const) {
      expect(hasNoDisplay({}, platform)).toBe(true);
      expect(hasNoDisplay({ DISPLAY: '', SSH_CONNECTION: '10.0.0.1 5 10.0.0.2 22' }, platform)).toBe(true);
      expect(hasNoDisplay({ DISPLAY: ':0' }, platform)).toBe(false);
      expect(hasNoDisplay({ WAYLAND_DISPLAY: 'wayland-0' }, platform)).toBe(false);
      // An SSH login with X forwarding has a display.
      expect(hasNoDisplay({ DISPLAY: 'localhost:10.0', SSH_CONNECTION: 'x' }, platform)).toBe(false);
    }
  });

  it('never on macOS or Windows, where a browser opens without either variable', () => {
    expect(hasNoDisplay({}, 'darwin')).toBe(false);
    expect(hasNoDisplay({ SSH_CONNECTION: 'x' }, 'darwin')).toBe(false);
    expect(hasNoDisplay({}, 'win32')).toBe(false);
  });
});
