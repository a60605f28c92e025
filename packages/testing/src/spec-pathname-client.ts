import { createHmac } from 'node:crypto';
import { responseBody } from './response-body.js';

/**
 * A partner's client written from spec 5.1 as worded, without the gateway's helpers: the signing
 * string is METHOD, line feed, URL pathname (no query), line feed, timestamp, line feed, raw body.
 * A retry sends the very same signed request again at once, as after a dropped connection.
 */
export async function pathnameSignedFetch(
  baseUrl: string,
  path: string,
  options: { projectId: string; secret: string; method?: string; body?: unknown; timestamp?: number },
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const method = options.method ?? 'GET';
  const url = new URL(path, baseUrl);
  const rawBody = options.body === undefined ? '' : JSON.stringify(options.body);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', options.secret).update(`${method}\n${url.pathname}\n${timestamp}\n${rawBody}`).digest('hex');
  const headers: Record<string, string> = { 'X-Project-Id': options.projectId, 'X-Timestamp': timestamp, 'X-Signature': signature };
  if (rawBody !== '') headers['Content-Type'] = 'application/json';
  const response = await fetch(url, { method, headers, ...(rawBody !== '' ? { body: rawBody } : {}) });
  const { text, body } = await responseBody(response);
  return { status: response.status, headers: response.headers, body, text };
}
