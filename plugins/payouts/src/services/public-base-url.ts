import { type KernelConfig, trimTrailing } from '@gw/kernel';

/** `{base_url}` of public links: `http.baseUrl`, else `http://<host>:<port>` (as the checkout's links). */
export function publicBaseUrl(config: KernelConfig): string {
  const http = config.http;
  if (http.baseUrl) return trimTrailing(http.baseUrl, '/');
  let host = http.host === '0.0.0.0' || http.host === '' ? '127.0.0.1' : http.host === '::' ? '::1' : http.host;
  if (host.includes(':')) host = `[${host}]`;
  return `http://${host}:${http.port}`;
}
