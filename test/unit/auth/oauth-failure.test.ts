import { RegistrationRejectedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { describeOAuthFailure } from '../../../src/auth/oauth-failure.js';

const page = '<!DOCTYPE html>\n<html><body><pre>Cannot POST /register</pre></body></html>';

describe('describeOAuthFailure', () => {
  it('names the status of a rejected registration, never its HTML page', () => {
    const error = new RegistrationRejectedError({ status: 404, body: page, submittedMetadata: {} as never });
    expect(describeOAuthFailure(error)).toBe(
      'the authorization server refused to register mcpx as a client (HTTP 404)',
    );
  });

  it('keeps an RFC 7591 error and description, on one line without controls', () => {
    const body = JSON.stringify({
      error: 'invalid_redirect_uri',
      error_description: 'loopback\n\u001b[2Jonly',
    });
    const error = new RegistrationRejectedError({ status: 400, body, submittedMetadata: {} as never });
    expect(describeOAuthFailure(error)).toBe(
      'the authorization server refused to register mcpx as a client (HTTP 400: invalid_redirect_uri: loopback [2Jonly)',
    );
  });

  it('cuts the raw body the SDK appends to other failures', () => {
    const error = new Error(`HTTP 502: Invalid OAuth error response: SyntaxError. Raw body: ${page}`);
    expect(describeOAuthFailure(error)).toBe('HTTP 502: Invalid OAuth error response: SyntaxError.');
    expect(describeOAuthFailure(new Error(page))).toBe('the server answered with an error page');
  });
});
