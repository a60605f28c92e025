import type { KernelConfig } from '../config/kernel-config.js';
import { trimTrailing } from '@gw/chain-api';

/**
 * `{base_url}` of the gateway's public links (claim links, session and payment-link pages):
 * `http.baseUrl`, else `http://<host>:<port>` of the configuration, as the checkout's links.
 */
export function publicBaseUrl(config: KernelConfig): string {
  const http = config.http;
  if (http.baseUrl) return trimTrailing(http.baseUrl, '/');
  let host = http.host === '0.0.0.0' || http.host === '' ? '127.0.0.1' : http.host === '::' ? '::1' : http.host;
  if (host.includes(':')) host = `[${host}]`;
  return `http://${host}:${http.port}`;
}
