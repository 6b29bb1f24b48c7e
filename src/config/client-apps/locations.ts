import { join } from 'node:path';
import type { ClientAppContext } from './types.js';

/**
 * Where desktop applications keep their settings: `%APPDATA%` on Windows,
 * `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` (or
 * `~/.config`) elsewhere.
 */
export function appDataDir(ctx: ClientAppContext): string {
  if (ctx.platform === 'win32') return ctx.env.APPDATA || join(ctx.homedir, 'AppData', 'Roaming');
  if (ctx.platform === 'darwin') return join(ctx.homedir, 'Library', 'Application Support');
  return xdgConfigDir(ctx);
}

/** `$XDG_CONFIG_HOME`, or `~/.config`: where command-line tools keep settings on every OS but Windows. */
export function xdgConfigDir(ctx: ClientAppContext): string {
  return ctx.env.XDG_CONFIG_HOME || join(ctx.homedir, '.config');
}
