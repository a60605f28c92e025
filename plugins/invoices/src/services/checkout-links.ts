import { randomBytes } from 'node:crypto';
import { trimTrailing, type KernelConfig } from '@gw/kernel';

/** Path of the hosted checkout page below {base_url}; the checkout plugin serves it. */
export const CHECKOUT_PATH = '/checkout';

/** A checkout token: 24 random bytes, base64url (32 characters). Older invoices carry 64 hex. */
export const CHECKOUT_TOKEN_PATTERN = '^[A-Za-z0-9_-]{32,64}$';

/** A fresh, unguessable checkout token (192 bits). */
export function newCheckoutToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Builds `checkout_url` (issue 21): `{base_url}/checkout/{checkout_token}`. `{base_url}` is
 * `http.baseUrl`, else `http://<host>:<port>` of the configuration; a deployment behind a proxy or
 * with several instances configures `http.baseUrl` so every instance hands out the same URL.
 */
export class CheckoutLinks {
  readonly baseUrl: string;

  constructor(deps: { kernelConfig: KernelConfig }) {
    const http = deps.kernelConfig.http;
    if (http.baseUrl) {
      this.baseUrl = trimTrailing(http.baseUrl, '/');
    } else {
      let host = http.host === '0.0.0.0' || http.host === '' ? '127.0.0.1' : http.host === '::' ? '::1' : http.host;
      if (host.includes(':')) host = `[${host}]`;
      this.baseUrl = `http://${host}:${http.port}`;
    }
  }

  /** The page of the invoice whose token this is. */
  url(token: string): string {
    return `${this.baseUrl}${CHECKOUT_PATH}/${token}`;
  }
}
