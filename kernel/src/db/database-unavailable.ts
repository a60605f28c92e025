/**
 * Whether `error` means the database cannot be reached right now, rather than that the request or
 * the code is wrong: the server refuses or drops connections (down, restarting, failing over), is
 * shutting down or starting up, has no connection slot left, or the pool found no connection in
 * time. The HTTP layer answers these 503 with `Retry-After` (the partner retries the same request)
 * instead of 500; whatever the request was doing ran in a transaction that never committed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let seen = error, depth = 0; seen && typeof seen === 'object' && depth < 5; depth++) {
    const { code, name, message } = seen as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08'))) return true;
    if (name === 'KnexTimeoutError') return true;
    if (typeof message === 'string' && MESSAGES.some((m) => message.includes(m))) return true;
    // Objection wraps the driver's error as `nativeError`. A `cause` is not followed: an outbound
    // HTTP call's failure (fetch's TypeError with the socket error as its cause) is not the database.
    seen = (seen as { nativeError?: unknown }).nativeError;
  }
  return false;
}

/** Node's socket errors on the way to the server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's: class 08 (connection exception) by prefix, plus the shutdowns of class 57 (admin,
 * crash, cannot connect now: starting up or shutting down) and too_many_connections.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres' and pg-pool's errors that carry no code. */
const MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
];
