import { RegistrationRejectedError } from '@modelcontextprotocol/client';

const MAX_DETAIL = 200;

/**
 * One line saying why an OAuth step failed, fit for a terminal. The SDK puts
 * the endpoint's raw response body in its messages (`Dynamic Client
 * Registration rejected (HTTP 404): <!DOCTYPE html>…`, `Raw body: …`): an
 * HTML error page is noise at best and server-controlled text at worst, so
 * only the status and an RFC 6749/7591 `error` and `error_description` are kept.
 */
export function describeOAuthFailure(error: unknown): string {
  if (error instanceof RegistrationRejectedError) {
    const detail = oauthErrorDetail(error.body);
    return `the authorization server refused to register mcpx as a client (HTTP ${error.status}${detail ? `: ${detail}` : ''})`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const status = /HTTP (\d{3})/.exec(message)?.[1];
  // Everything from the raw body on is the server's text, not the SDK's.
  const own = message.split(/Raw body:|\r?\n/)[0] ?? '';
  if (/<\s*(!doctype|html|head|body)\b/i.test(own)) {
    return status
      ? `the server answered HTTP ${status} with an error page`
      : 'the server answered with an error page';
  }
  return oneLine(own) || (status ? `HTTP ${status}` : 'unknown error');
}

/** `error: error_description` from an OAuth error body, or nothing when the body is not one. */
function oauthErrorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error !== 'string') return '';
    const description = typeof parsed.error_description === 'string' ? `: ${parsed.error_description}` : '';
    return oneLine(`${parsed.error}${description}`);
  } catch {
    return '';
  }
}

function oneLine(text: string): string {
  // Controls and hidden characters would let a server rewrite the line; the formatter escapes the rest.
  const flat = text
    .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > MAX_DETAIL ? `${flat.slice(0, MAX_DETAIL)}…` : flat;
}
