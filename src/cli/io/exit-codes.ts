import { ErrorCode as Codes, type ErrorCode } from '../../errors/index.js';

/**
 * Exit codes, close to the MCP Inspector CLI's contract so scripts can switch
 * tools: 0 ok, 1 usage, 2 config, 3 auth, 4 unreachable, 5 tool or server
 * error, 6 denied by permissions, 130 cancelled.
 */
export const ExitCode = {
  Ok: 0,
  Usage: 1,
  Config: 2,
  Auth: 3,
  Unreachable: 4,
  ToolError: 5,
  Denied: 6,
  Cancelled: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

const byCode: Record<ErrorCode, ExitCode> = {
  [Codes.Usage]: ExitCode.Usage,
  [Codes.UnknownServer]: ExitCode.Usage,
  [Codes.ServerExists]: ExitCode.Usage,
  [Codes.UnknownTool]: ExitCode.Usage,
  [Codes.UnknownProfile]: ExitCode.Usage,
  [Codes.UnknownPrompt]: ExitCode.Usage,
  [Codes.UnknownSkill]: ExitCode.Usage,
  [Codes.InvalidArguments]: ExitCode.Usage,
  [Codes.ConfigNotFound]: ExitCode.Config,
  [Codes.ConfigUnreadable]: ExitCode.Config,
  [Codes.ConfigInvalidJson]: ExitCode.Config,
  [Codes.ConfigInvalid]: ExitCode.Config,
  [Codes.ConfigMissingTransport]: ExitCode.Config,
  [Codes.ConfigInterpolation]: ExitCode.Config,
  [Codes.ConfigUntrusted]: ExitCode.Config,
  [Codes.ConfigChanged]: ExitCode.Config,
  [Codes.ConfigLinked]: ExitCode.Config,
  [Codes.SelfReference]: ExitCode.Config,
  // Setup, not a mistyped command: the person must set a variable first.
  [Codes.ModelKeyMissing]: ExitCode.Config,
  [Codes.HomeUnsafe]: ExitCode.Config,
  [Codes.HomeAccess]: ExitCode.Config,
  [Codes.FileLocked]: ExitCode.Config,
  [Codes.DaemonUnsafe]: ExitCode.Config,
  [Codes.DaemonUnavailable]: ExitCode.Unreachable,
  [Codes.DaemonAlreadyRunning]: ExitCode.Usage,
  [Codes.StateKeyUnsafe]: ExitCode.Config,
  [Codes.FleetStateUnavailable]: ExitCode.Unreachable,
  [Codes.CommandNotFound]: ExitCode.Unreachable,
  [Codes.SpawnPermissionDenied]: ExitCode.Unreachable,
  [Codes.SpawnFailed]: ExitCode.Unreachable,
  [Codes.ServerCrashed]: ExitCode.Unreachable,
  [Codes.ConnectTimeout]: ExitCode.Unreachable,
  [Codes.PackageInstallTimeout]: ExitCode.Unreachable,
  [Codes.NpxCacheDamaged]: ExitCode.Unreachable,
  [Codes.RequestTimeout]: ExitCode.Unreachable,
  [Codes.MessageTooLarge]: ExitCode.Unreachable,
  [Codes.InvalidServerOutput]: ExitCode.Unreachable,
  // The server's skill, not the command, is at fault: as a tool's error.
  [Codes.SkillRefused]: ExitCode.ToolError,
  [Codes.MalformedReply]: ExitCode.Unreachable,
  [Codes.ConnectionClosed]: ExitCode.Unreachable,
  [Codes.UnsupportedTransport]: ExitCode.Config,
  [Codes.HttpUnreachable]: ExitCode.Unreachable,
  [Codes.HttpStatus]: ExitCode.Unreachable,
  [Codes.RedirectRefused]: ExitCode.Unreachable,
  [Codes.SsrfBlocked]: ExitCode.Unreachable,
  [Codes.SessionExpired]: ExitCode.Unreachable,
  [Codes.InvalidSessionId]: ExitCode.Unreachable,
  [Codes.AuthRequired]: ExitCode.Auth,
  [Codes.ServerRejected]: ExitCode.ToolError,
  [Codes.ToolError]: ExitCode.ToolError,
  // The call did not complete, as a tool error does; the code (in --json) says why.
  [Codes.ClientCapabilityMissing]: ExitCode.ToolError,
  [Codes.InvalidToolOutput]: ExitCode.ToolError,
  [Codes.ListPaginationBroken]: ExitCode.ToolError,
  [Codes.ListTooLarge]: ExitCode.ToolError,
  // The server moved on from the code generated for it: as a tool's error.
  [Codes.ToolsChanged]: ExitCode.ToolError,
  [Codes.PermissionDenied]: ExitCode.Denied,
  [Codes.Cancelled]: ExitCode.Cancelled,
  [Codes.Internal]: ExitCode.Usage,
};

export function exitCodeFor(code: ErrorCode): ExitCode {
  return byCode[code];
}
