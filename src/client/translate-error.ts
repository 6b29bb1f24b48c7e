import {
  OAuthError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../errors/index.js';

/** What the connection knows when a request fails, to say what really happened. */
export interface FailureScene {
  readonly server: string;
  readonly method: string;
  readonly timeoutMs?: number;
  /** The caller's signal (or `CallCancel`): if it fired, the failure is a cancellation, whatever the SDK says. */
  readonly cancelled?: { readonly aborted: boolean };
  /** Why the transport closed, when it knows (a crash with its exit code and stderr tail). */
  readonly closeReason?: McpxError;
}

/**
 * Turn whatever the SDK threw into an McpxError that names the server and the
 * real cause. Classification happens here, by type and code, never by text.
 */
export function translateRequestError(error: unknown, scene: FailureScene): McpxError {
  const { server, method } = scene;
  if (error instanceof McpxError) return error.context.server ? error : error.withContext({ server });
  // SDK 2.4.0 rejects an aborted request with RequestTimeout; the caller's
  // signal is the ground truth for "the user cancelled".
  if (scene.cancelled?.aborted) {
    return new McpxError(ErrorCode.Cancelled, `${method} was cancelled`, { server, cause: error });
  }
  if (scene.closeReason) return scene.closeReason.withContext({ server });
  if (error instanceof OAuthError) {
    // The authorization server refused mcpx's client or grant (invalid_client, invalid_grant, …).
    return new McpxError(
      ErrorCode.AuthRequired,
      `the authorization server of '${server}' refused mcpx (${error.code}): ${error.message}`,
      {
        server,
        cause: error,
        causes: ['the client id or secret (or key) in the config is wrong or was revoked'],
        fixes: [
          "check the server's oauth block in the config",
          `or sign in again with \`mcpx auth ${server}\``,
        ],
      },
    );
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.RequestTimeout:
        return new McpxError(
          ErrorCode.RequestTimeout,
          `${method} timed out after ${scene.timeoutMs ?? '?'} ms with no answer from '${server}'`,
          {
            server,
            ...(scene.timeoutMs === undefined ? {} : { timeoutMs: scene.timeoutMs }),
            cause: error,
            causes: ['the server is busy or stuck', 'the operation takes longer than the timeout'],
            fixes: ['raise the timeout with --timeout <seconds> or request_timeout in the config'],
          },
        );
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return new McpxError(
          ErrorCode.ConnectionClosed,
          `the connection to '${server}' closed during ${method}`,
          {
            server,
            cause: error,
            fixes: ['run `mcpx doctor` to check the server'],
          },
        );
      case SdkErrorCode.CapabilityNotSupported:
        return new McpxError(ErrorCode.ServerRejected, `'${server}' does not support ${method}`, {
          server,
          cause: error,
        });
      case SdkErrorCode.InvalidResult:
        return new McpxError(
          ErrorCode.InvalidServerOutput,
          `'${server}' sent an invalid result for ${method}`,
          {
            server,
            cause: error,
          },
        );
      // The SDK's page cap (a list walked without mcpx's bounds, see list-bounds.ts).
      case SdkErrorCode.ListPaginationExceeded:
        return new McpxError(
          ErrorCode.ListTooLarge,
          `server '${server}' returned more pages than mcpx reads in ${method}`,
          { server, cause: error, causes: ['its pagination may never end (a new cursor on every page)'] },
        );
      default:
        return new McpxError(ErrorCode.ServerRejected, `${method} failed on '${server}': ${error.message}`, {
          server,
          cause: error,
        });
    }
  }
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MissingRequiredClientCapability) {
    return capabilityMissing(error, scene);
  }
  if (error instanceof ProtocolError) {
    return new McpxError(
      ErrorCode.ServerRejected,
      `'${server}' rejected ${method}: ${error.message} (JSON-RPC error ${error.code})`,
      { server, cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new McpxError(ErrorCode.ServerRejected, `${method} failed on '${server}': ${message}`, {
    server,
    cause: error,
  });
}

/** What each client capability a server may ask for is, in the words of a message to a person. */
const CAPABILITY_WORDS: Record<string, string> = {
  elicitation: 'asked a question (elicitation)',
  sampling: 'asked for a model completion (sampling)',
  roots: 'asked for the folders it may work in (roots)',
};

/**
 * -32021: the server needed to ask the client something mid-request, and the
 * host declared no way to answer it. The front end knows why (no terminal, no
 * model) and says so; this names the server and the capabilities it needed.
 */
function capabilityMissing(error: ProtocolError, scene: FailureScene): McpxError {
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  // The names come from the server: only the ones MCP defines are repeated.
  const capabilities =
    typeof required === 'object' && required !== null
      ? Object.keys(required).filter((c) => Object.hasOwn(CAPABILITY_WORDS, c))
      : [];
  const asked = capabilities.map((c) => CAPABILITY_WORDS[c]);
  return new McpxError(
    ErrorCode.ClientCapabilityMissing,
    `server '${scene.server}' ${asked.length ? asked.join(' and ') : 'needed a client capability'} during ${scene.method}, and nobody here can answer it`,
    { server: scene.server, capabilities, cause: error },
  );
}
