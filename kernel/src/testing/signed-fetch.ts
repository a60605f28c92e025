import { requestTarget, signRequest } from '../http/request-signature.js';

export interface SignedFetchOptions {
  readonly projectId: string;
  readonly secret: string;
  readonly method?: string;
  readonly body?: unknown;
  /** Override the timestamp (seconds), e.g. to test the window. */
  readonly timestamp?: number;
  /** Replace or drop headers after signing (undefined drops). */
  readonly headers?: Record<string, string | undefined>;
}

// Signatures of writes this process signed with the current time: a signed write is single-use, so
// a second identical write within the same second is signed with the next second, as a partner's
// client does (docs/decisions.md).
const signedWrites = new Set<string>();

/**
 * A partner's signed request, as spec 5.1 describes it (the query string signed); returns status,
 * headers and parsed body.
 */
export async function signedFetch(baseUrl: string, path: string, options: SignedFetchOptions): Promise<{ status: number; headers: Headers; body: any }> {
  const method = options.method ?? 'GET';
  const rawBody = options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const target = requestTarget(new URL(path, baseUrl));
  let timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  let signature = signRequest({ secret: options.secret, method, target, timestamp, rawBody });
  if (options.timestamp === undefined && method !== 'GET') {
    while (signedWrites.has(signature)) signature = signRequest({ secret: options.secret, method, target, timestamp: ++timestamp, rawBody });
    signedWrites.add(signature);
  }
  const headers: Record<string, string> = {
    'X-Project-Id': options.projectId,
    'X-Timestamp': String(timestamp),
    'X-Signature': signature,
  };
  if (rawBody !== '') headers['Content-Type'] = 'application/json';
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const response = await fetch(new URL(path, baseUrl), { method, headers, ...(rawBody !== '' ? { body: rawBody } : {}) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON; return the text
  }
  return { status: response.status, headers: response.headers, body };
}
