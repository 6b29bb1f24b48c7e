import type { ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { createHost, type Host, type HostEvent, rollBackInstallsNow } from '../../host/index.js';
import type { CliIo } from '../io/io.js';
import { installNotice } from '../output/install-notice.js';
import type { GlobalOptions } from './global-options.js';
import { type CommandSettings, hostOptionsFor } from './host-options.js';
import { cliNotices, type Notices } from './notices.js';

/** What a command is handed: its io, its global flags and its notices, and the door to its host. */
export interface CliDoor extends Notices {
  readonly io: CliIo;
  readonly options: GlobalOptions;
  /**
   * Make this command's host from its flags, its io and `settings`, once: the host is never
   * changed afterwards (`createHost` keeps a frozen copy of its options). A bad global flag
   * (`--timeout`, `--stdio`…) fails here.
   */
  open(settings?: CommandSettings): CliContext;
}

/** A command with its host made: what its helpers are handed. */
export interface CliContext extends Notices {
  readonly io: CliIo;
  readonly options: GlobalOptions;
  readonly host: Host;
  /** The ad-hoc server of --stdio or --url, as the host was given it. */
  readonly adhoc: ServerConfig | undefined;
}

/** The door of one command run; `close()` closes its host, if it was made. */
export function commandDoor(io: CliIo, options: GlobalOptions): CliDoor & { close(): Promise<void> } {
  const notices = cliNotices(io, options);
  let host: Host | undefined;
  // A second Ctrl-C leaves at once: a package runner still installing is ended and its
  // unfinished folder removed first, never left half written.
  io.onForcedExit?.(rollBackInstallsNow);
  return {
    io,
    options,
    ...notices,
    open(settings = {}) {
      if (host) throw new McpxError(ErrorCode.Internal, 'a command makes its host once');
      const hostOptions = hostOptionsFor(settings, options, io, notices.notice);
      const made = createHost(hostOptions);
      host = made;
      made.on((event) => {
        // Each command reports a server's failure itself, in its place (a row, a FAIL, an error).
        if (event.type !== 'failure') notices.notice(describe(event));
      });
      return Object.freeze({ io, options, host: made, adhoc: hostOptions.adhoc, ...notices });
    },
    close: async () => host?.close(),
  };
}

function describe(event: Exclude<HostEvent, { type: 'failure' }>): string {
  if (event.type === 'install') return installNotice(event.event);
  return event.type === 'warning' ? `warning: ${event.message}` : event.message;
}
