/**
 * A partner's own API paid with x402, settled into the gateway operator's addresses (issue 41): the
 * facilitator token, and the two values the standard x402 middleware (`@x402/express`,
 * `@x402/hono`, …) needs from the gateway for a route, its `payTo` (a fresh address, one invoice
 * per paid call) and its `price` (the gateway's token on its network). The middleware's
 * facilitator is the gateway: `new HTTPFacilitatorClient({ url: facilitatorUrl, createAuthHeaders })`.
 */
import { GatewayError } from './errors.js';
import { hmacSha256 } from './web-crypto.js';

/** The facilitator's base path under the gateway's base URL: `facilitatorUrl` is `<base URL>/api/v1/x402/facilitator`. */
export const X402_FACILITATOR_PATH = '/api/v1/x402/facilitator';

/**
 * The project's facilitator token, `x402_<project id>_<base64url HMAC-SHA256(secret, "x402-facilitator:<project id>")>`,
 * for `Authorization: Bearer <token>` on the facilitator routes. It is valid while `secret` is a
 * live secret of the project's API key, so it follows the key's rotation and revocation.
 */
export async function x402FacilitatorToken(projectId: string, secret: string): Promise<string> {
  return `x402_${projectId}_${base64Url(await hmacSha256(secret, `x402-facilitator:${projectId}`))}`;
}

/** What `gatewayPayTo` and `gatewayAsset` ask the gateway with. */
export interface X402FacilitatorAccess {
  /** `<gateway base URL>/api/v1/x402/facilitator`. */
  readonly facilitatorUrl: string;
  /** `x402FacilitatorToken(projectId, secret)`. */
  readonly token: string;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

/** The part of the x402 middleware's request context `gatewayPayTo` reads (`HTTPRequestContext` of `@x402/core`). */
export interface X402PayToContext {
  /** The request's `PAYMENT-SIGNATURE` (base64 JSON of the payment), when it carries one. */
  readonly paymentHeader?: string;
  readonly path?: string;
  readonly adapter?: { getUrl(): string };
}

/** The route's price as the middleware's `price` takes it (`AssetAmount`): base units of the gateway's token. */
export interface X402AssetInfo {
  /** CAIP-2 network (`eip155:8453`), the route's `network`. */
  readonly network: string;
  /** The token contract. */
  readonly asset: string;
  /** The token's EIP-712 domain (`name`, `version`), the price's `extra`. */
  readonly extra: { readonly name: string; readonly version: string };
  readonly decimals: number;
}

/**
 * The middleware's dynamic `payTo(ctx)` for a route priced `amount` (a decimal string in `coin`):
 * without a payment, a fresh address, each an invoice of the project (`POST …/pay-to`, with the
 * request's origin and path as the resource, never its query); with one, the address the payment was offered (`accepted.payTo`),
 * so the retry's requirement is the one the client paid. Throws `GatewayError` when the gateway
 * refuses (429 `rate_limit_exceeded`, 422 `x402_coin_unsupported`, 401 `x402_credential_invalid`).
 */
export function gatewayPayTo(
  options: X402FacilitatorAccess & { readonly coin: string; readonly amount: string; readonly description?: string; readonly mimeType?: string },
): (ctx: X402PayToContext) => Promise<string> {
  return async (ctx) => {
    const paid = ctx.paymentHeader === undefined ? undefined : acceptedPayTo(ctx.paymentHeader);
    if (paid !== undefined) return paid;
    const resource: Record<string, string> = { url: resourceUrl(ctx) };
    if (options.description !== undefined) resource['description'] = options.description;
    if (options.mimeType !== undefined) resource['mimeType'] = options.mimeType;
    const body = (await call(options, 'POST', '/pay-to', { coin: options.coin, amount: options.amount, resource })) as {
      requirements: { payTo: string };
    };
    return body.requirements.payTo;
  };
}

/** The gateway's token of `coin` for this project (`GET …/assets`): the route's `network` and `price`'s `asset` and `extra`. */
export async function gatewayAsset(options: X402FacilitatorAccess & { readonly coin: string }): Promise<X402AssetInfo> {
  const body = (await call(options, 'GET', '/assets')) as {
    data: { coin: string; network: string; asset: string; decimals: number; extra: { name: string; version: string } }[];
  };
  const found = body.data.find((entry) => entry.coin === options.coin);
  if (!found) {
    throw new GatewayError({
      status: 422,
      body: { error_code: 'x402_coin_unsupported', message: `The gateway cannot take ${options.coin} with x402 for this project.`, request_id: '' },
      requestId: undefined,
      retryAfter: undefined,
      method: 'GET',
      path: `${X402_FACILITATOR_PATH}/assets`,
    });
  }
  return { network: found.network, asset: found.asset, extra: { name: found.extra.name, version: found.extra.version }, decimals: found.decimals };
}

async function call(access: X402FacilitatorAccess, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const doFetch = access.fetch ?? globalThis.fetch;
  let base = access.facilitatorUrl;
  while (base.endsWith('/')) base = base.slice(0, -1);
  const url = `${base}${path}`;
  const headers: Record<string, string> = { Authorization: `Bearer ${access.token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await doFetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const retry = Number(res.headers.get('retry-after'));
    throw new GatewayError({
      status: res.status,
      body: parsed,
      requestId: res.headers.get('x-request-id') ?? undefined,
      retryAfter: Number.isFinite(retry) && retry > 0 ? retry : undefined,
      method,
      path: new URL(url).pathname,
    });
  }
  return parsed;
}

/** `accepted.payTo` of a `PAYMENT-SIGNATURE` (base64 of the payment's JSON); undefined when it names none. */
function acceptedPayTo(header: string): string | undefined {
  try {
    const bytes = Uint8Array.from(atob(header.trim()), (c) => c.charCodeAt(0));
    const payment = JSON.parse(new TextDecoder().decode(bytes)) as { accepted?: { payTo?: unknown } };
    const payTo = payment.accepted?.payTo;
    return typeof payTo === 'string' && payTo !== '' ? payTo : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The resource as the offer records it: the request URL's origin and path only. The query (and a
 * fragment) may carry the caller's data (ids, tokens); it would reach the invoice's metadata and
 * webhooks, so it is never sent.
 */
function resourceUrl(ctx: X402PayToContext): string {
  try {
    const url = ctx.adapter?.getUrl();
    if (url) {
      const parsed = new URL(url);
      return `${parsed.origin}${parsed.pathname}`;
    }
  } catch {
    // An adapter without a full URL: the path names the resource.
  }
  return (ctx.path ?? '/').split(/[?#]/, 1)[0] || '/';
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
