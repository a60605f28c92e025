import { signRequest } from '../http/request-signature.js';

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

/** A partner's signed request, as spec 5.1 describes it; returns status, headers and parsed body. */
export async function signedFetch(baseUrl: string, path: string, options: SignedFetchOptions): Promise<{ status: number; headers: Headers; body: any }> {
  const method = options.method ?? 'GET';
  const rawBody = options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const pathname = new URL(path, baseUrl).pathname;
  const headers: Record<string, string> = {
    'X-Project-Id': options.projectId,
    'X-Timestamp': String(timestamp),
    'X-Signature': signRequest({ secret: options.secret, method, pathname, timestamp, rawBody }),
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
