import { displayPaths } from '../../errors/index.js';
import { formatSdkDiagnostic, type SdkDiagnostic } from '../../host/index.js';
import { say } from '../../text/index.js';
import type { CliIo } from '../io/io.js';
import type { GlobalOptions } from './global-options.js';

/** A command's lines for the person, on stderr (never stdout, which --json reserves for the result). */
export interface Notices {
  /**
   * A line for the person. Notices quote servers (logs, errors, tool results): every one is
   * made fit for a terminal here (`say`), whatever its caller did.
   */
  readonly notice: (line: string) => void;
  /**
   * Text for the person: every path under the home folder as `~/…` (`~/.mcpx/mcp.json`). With
   * --json the text is for a script, which needs real paths: unchanged.
   */
  readonly forPerson: (text: string) => string;
  /** What the SDK said about a server (--verbose); it quotes the server, so it is sanitized. */
  readonly sdkNotice: (diagnostic: SdkDiagnostic) => void;
}

/** The notices of one command run with `options` at `io`. */
export function cliNotices(io: CliIo, options: Pick<GlobalOptions, 'json'>): Notices {
  const forPerson = (text: string) => (options.json ? text : displayPaths(text, io.homedir));
  const notice = (line: string) => {
    io.stderr.write(say`${forPerson(line)}\n`);
  };
  return { notice, forPerson, sdkNotice: (diagnostic) => notice(formatSdkDiagnostic(diagnostic)) };
}
