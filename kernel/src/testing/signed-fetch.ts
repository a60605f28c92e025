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

// GW_TEST_SIGNING=pathname-retry makes every signed request of a test run the client of issue 33:
// it signs the pathname alone (spec 5.1 as worded) and sends each request twice at once, as after
// a dropped connection; the second answer is the one returned, and a write whose two answers
// differ fails the test. Running existing suites this way checks that such a client passes them.
const pathnameRetry = process.env['GW_TEST_SIGNING'] === 'pathname-retry';

/**
 * A partner's signed request, as spec 5.1 describes it (the query string signed); returns status,
 * headers and parsed body.
 */
export async function signedFetch(baseUrl: string, path: string, options: SignedFetchOptions): Promise<{ status: number; headers: Headers; body: any }> {
  const method = options.method ?? 'GET';
  const rawBody = options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const url = new URL(path, baseUrl);
  const target = pathnameRetry ? url.pathname : requestTarget(url);
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
  const send = () => fetch(url, { method, headers, ...(rawBody !== '' ? { body: rawBody } : {}) });
  let response = await send();
  let text = await response.text();
  if (pathnameRetry) {
    const first = { status: response.status, text };
    response = await send();
    text = await response.text();
    const repeatable = first.status < 500 && first.status !== 429 && response.status !== 503;
    // A request refused before its route runs (a body that is not JSON, a bad signature) is not
    // recorded: the copy is refused alike, under its own request id.
    const same = (a: string, b: string) => a === b || a.replace(/"request_id":"[^"]*"/, '') === b.replace(/"request_id":"[^"]*"/, '');
    if (method !== 'GET' && repeatable && (response.status !== first.status || !same(text, first.text))) {
      throw new Error(`${method} ${path}: an immediate retry answered ${response.status} ${text}, the first ${first.status} ${first.text}`);
    }
  }
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON; return the text
  }
  return { status: response.status, headers: response.headers, body };
}
