/** The failures GuardedHttp raises, each saying what was sent, what came back and what to do. */
import { ErrorCode, McpxError } from '../../errors/index.js';
import { type ExchangeInfo, isUnsafeToRepeat, networkErrorCode, parseRetryAfter } from './retry-policy.js';

/** The request a failure is about: where it went and what it carried. */
export interface FailedExchange extends ExchangeInfo {
  readonly url: URL;
  /** JSON-RPC method(s), `GET stream` or `DELETE session`. */
  readonly what: string;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function redirectRefused(exchange: FailedExchange, response: Response): McpxError {
  const location = response.headers.get('location');
  let target = location ?? '(no Location header)';
  try {
    if (location) target = new URL(location, exchange.url).href;
  } catch {}
  return new McpxError(
    ErrorCode.RedirectRefused,
    `${exchange.url.href} answered HTTP ${response.status} redirecting to ${target}; mcpx does not follow redirects`,
    {
      url: exchange.url.href,
      httpStatus: response.status,
      causes: [
        'the URL moved',
        'a proxy or login page intercepts the request',
        'a server tries to steer mcpx somewhere else',
      ],
      fixes: [`if you trust ${target}, put it in the config as the server's url`],
    },
  );
}

/**
 * A 429/5xx mcpx gave up on. `connectRemainingMs`: it happened while
 * connecting, with this much of the connect budget left (too little to wait
 * for the server once more).
 */
export function statusError(
  exchange: FailedExchange,
  response: Response,
  attempts: number,
  server: string,
  connectRemainingMs?: number,
): McpxError {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const unsafe = isUnsafeToRepeat(exchange) && response.status !== 429 && response.status !== 503;
  const connecting = connectRemainingMs !== undefined;
  return new McpxError(
    ErrorCode.HttpStatus,
    `'${server}' answered ${status} to ${exchange.what} after ${attempts} attempt${attempts === 1 ? '' : 's'}${unsafe ? ' (not retried: the tool may already have run)' : ''}${connecting ? budgetNote(retryAfter, connectRemainingMs) : ''}`,
    {
      server,
      url: exchange.url.href,
      attempts,
      httpStatus: response.status,
      causes: [
        response.status === 429
          ? 'the server is rate limiting this client'
          : response.status === 503
            ? 'the server is overloaded or still starting'
            : 'the server or a proxy in front of it is failing',
        ...(retryAfter !== undefined ? [`the server asked to wait ${seconds(retryAfter)}`] : []),
      ],
      fixes: connecting
        ? [
            'try again later',
            'raise connect_timeout (seconds) for this server in the config, or pass --timeout',
          ]
        : ['try again later', 'raise http_max_retries / http_retry_backoff for this server in the config'],
    },
  );
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Why a busy server was not waited for while connecting. */
function budgetNote(retryAfterMs: number | undefined, remainingMs: number): string {
  return retryAfterMs === undefined
    ? `; the ${seconds(remainingMs)} left of the connect timeout are too few for another attempt`
    : `; it asked to wait ${seconds(retryAfterMs)}, more than the ${seconds(remainingMs)} left of the connect timeout`;
}

/**
 * No HTTP exchange at all: nothing listening (connection refused), a host
 * name that does not exist, or a network failure; each says where mcpx tried.
 */
export function unreachable(
  exchange: FailedExchange,
  server: string,
  error: unknown,
  attempts: number,
  notRetriedUnsafe: boolean,
): McpxError {
  const code = networkErrorCode(error);
  const { hostname, port, protocol, origin } = exchange.url;
  const where = `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const context = { server, url: exchange.url.href, attempts, cause: error };
  if (code === 'ECONNREFUSED') {
    return new McpxError(
      ErrorCode.HttpUnreachable,
      `nothing is listening on ${where} (connection refused, ${tries})`,
      {
        ...context,
        causes: ['the server is not running', `it listens on another port or address than ${where}`],
        fixes: [
          `start the server, then try again`,
          `check that the server listens on ${where}, as the url in the config says`,
        ],
      },
    );
  }
  if (code === 'ENOTFOUND') {
    return new McpxError(ErrorCode.HttpUnreachable, `the host name ${hostname} was not found (DNS)`, {
      ...context,
      causes: [
        'the host name is misspelled',
        'a VPN or company network that knows the name is not connected',
      ],
      fixes: [`check the host name in the server's url`, 'connect to the network the server is on'],
    });
  }
  return new McpxError(
    ErrorCode.HttpUnreachable,
    `cannot reach ${origin} (${code ?? describe(error)}) during ${exchange.what}, after ${tries}${notRetriedUnsafe ? '; not retried because the tool may already have run' : ''}`,
    {
      ...context,
      causes: [
        'the server is not running or not listening on that address',
        'a firewall, proxy or VPN is in the way',
      ],
      fixes: ['check the url in the config and that the server is up', 'run `mcpx doctor`'],
    },
  );
}

export function authRequired(exchange: FailedExchange, response: Response, server: string): McpxError {
  return new McpxError(
    ErrorCode.AuthRequired,
    `'${server}' answered HTTP ${response.status} to ${exchange.what}: it needs ${response.status === 401 ? 'authorization' : 'more permissions'}`,
    {
      server,
      url: exchange.url.href,
      httpStatus: response.status,
      fixes: [
        ...(response.status === 401 ? [`sign in with \`mcpx auth ${server}\` if the server uses OAuth`] : []),
        'or add the credentials the server expects to `headers` in the config, e.g. an Authorization header with a bearer token from an environment variable',
      ],
    },
  );
}

export function sessionExpired(exchange: FailedExchange, server: string): McpxError {
  return new McpxError(
    ErrorCode.SessionExpired,
    `'${server}' ended the session and did not accept a new one (${exchange.what})`,
    {
      server,
      url: exchange.url.href,
      httpStatus: 404,
      causes: ['the server restarted or expires sessions quickly'],
      fixes: ['reconnect; if it keeps happening, report it to the server author'],
    },
  );
}

export function streamBroken(
  exchange: FailedExchange,
  server: string,
  cause: unknown,
  attempts: number,
): McpxError {
  const unsafe = isUnsafeToRepeat(exchange);
  return new McpxError(
    ErrorCode.ConnectionClosed,
    `the response stream for ${exchange.what} from '${server}' broke before the result${unsafe ? '; not re-sent because the tool may already have run' : ''}`,
    {
      server,
      url: exchange.url.href,
      attempts,
      ...(cause === undefined ? {} : { cause }),
      causes: ['the network or a proxy dropped the connection', 'the server crashed or restarted'],
      fixes: unsafe ? ['check whether the tool took effect before calling it again'] : ['try again'],
    },
  );
}
