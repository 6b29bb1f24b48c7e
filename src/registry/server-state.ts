/**
 * A server's lifecycle (the Nerve seed's node states):
 * created → starting → ready ⇄ busy → stopping → stopped, and error from any
 * active state, with the reason kept beside it.
 */
export type ServerState = 'created' | 'starting' | 'ready' | 'busy' | 'stopping' | 'stopped' | 'error';

const transitions: Record<ServerState, readonly ServerState[]> = {
  created: ['starting', 'stopped'],
  starting: ['ready', 'error', 'stopping'],
  ready: ['busy', 'stopping', 'error', 'starting'],
  busy: ['ready', 'stopping', 'error'],
  stopping: ['stopped'],
  stopped: ['starting'],
  error: ['starting', 'stopping', 'stopped'],
};

/** Whether the lifecycle allows going from `from` to `to`. */
export function canTransition(from: ServerState, to: ServerState): boolean {
  return from === to || transitions[from].includes(to);
}

/**
 * What a front end shows for a server: its lifecycle state, except that a
 * server connected but unable to list what it offers (its tools, or the
 * resources or prompts it declares) is `listing-failed` — a failure, never
 * `ready` with nothing in it.
 */
export type ServerCondition = ServerState | 'listing-failed';
