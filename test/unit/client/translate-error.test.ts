import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { translateRequestError } from '../../../src/client/translate-error.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';

describe('translateRequestError', () => {
  it('reports an aborted request as a cancellation, although the SDK calls it a timeout', () => {
    const controller = new AbortController();
    controller.abort();
    const sdk = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out');
    const error = translateRequestError(sdk, {
      server: 's',
      method: 'tools/call x',
      cancelled: controller.signal,
    });
    expect(error.code).toBe(ErrorCode.Cancelled);
    expect(error.context.server).toBe('s');
  });

  it('reports a real timeout with the limit and a fix', () => {
    const error = translateRequestError(new SdkError(SdkErrorCode.RequestTimeout, 't'), {
      server: 's',
      method: 'tools/call x',
      timeoutMs: 1500,
    });
    expect(error.code).toBe(ErrorCode.RequestTimeout);
    expect(error.message).toContain('1500 ms');
    expect(error.fixes.join()).toContain('--timeout');
  });

  it('prefers the transport close reason (a crash) over a generic connection-closed', () => {
    const crash = new McpxError(ErrorCode.ServerCrashed, 'exited with code 3', { exitCode: 3 });
    const error = translateRequestError(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), {
      server: 's',
      method: 'tools/call x',
      closeReason: crash,
    });
    expect(error.code).toBe(ErrorCode.ServerCrashed);
    expect(error.context).toMatchObject({ server: 's', exitCode: 3 });
  });

  it('classifies -32021 by its code, repeating only the capabilities MCP defines', () => {
    const refused = new ProtocolError(-32021, 'Cannot request input', {
      requiredCapabilities: { elicitation: {}, 'x\u001b]52;c;cHduZWQ=\u0007': {} },
    });
    const error = translateRequestError(refused, { server: 's', method: 'tools/call x' });
    expect(error.code).toBe(ErrorCode.ClientCapabilityMissing);
    expect(error.context.capabilities).toEqual(['elicitation']);
    expect(error.message).toBe(
      "server 's' asked a question (elicitation) during tools/call x, and nobody here can answer it",
    );
    expect(error.cause).toBe(refused);
  });

  it('names the JSON-RPC error a server answered with', () => {
    const error = translateRequestError(new ProtocolError(-32602, 'Invalid params'), {
      server: 's',
      method: 'tools/call x',
    });
    expect(error.code).toBe(ErrorCode.ServerRejected);
    expect(error.message).toContain('-32602');
  });
});
