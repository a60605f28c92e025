import { lookup } from 'node:dns/promises';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { isBlockedAddress } from '@gw/kernel';

/** Why a client metadata document could not be used; the message is shown to the user and logged. */
export class ClientDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientDocumentError';
  }
}

/** A fetched document and the freshness lifetime its `Cache-Control` header asked for, if any. */
export interface FetchedDocument {
  readonly document: unknown;
  /** Seconds from `max-age`; 0 for `no-store` / `no-cache`; undefined when the header says nothing. */
  readonly maxAgeSeconds: number | undefined;
}

/** The freshness lifetime of a `Cache-Control` value: `no-store`/`no-cache` → 0, `max-age=N` → N. */
export function cacheControlMaxAge(header: string | undefined): number | undefined {
  if (!header) return undefined;
  let maxAge: number | undefined;
  for (const part of header.slice(0, 1024).split(',')) {
    const [name = '', value] = part.trim().toLowerCase().split('=', 2);
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age' && value !== undefined && /^"?\d{1,12}"?$/.test(value)) maxAge = Number(value.replace(/"/g, ''));
  }
  return maxAge;
}

export interface ClientDocumentFetcherOptions {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Tests only: private, loopback and link-local addresses are allowed. */
  readonly allowPrivateAddresses: boolean;
  /** Tests only: a PEM certificate trusted besides the system roots. */
  readonly extraCaPem?: string | undefined;
}

/**
 * Fetches a Client ID Metadata Document with SSRF guards: the host is resolved first and every
 * address it resolves to is checked (any blocked one refuses the whole fetch); the connection then
 * goes to an address that was checked (never a second resolution, so DNS rebinding cannot slip
 * past), with SNI and certificate checks against the host name. No redirects are followed, the
 * body is bounded, and the whole fetch has a deadline.
 */
export class ClientDocumentFetcher {
  private readonly ca: string[] | undefined;

  constructor(private readonly options: ClientDocumentFetcherOptions) {
    this.ca = options.extraCaPem ? [...rootCertificates, options.extraCaPem] : undefined;
  }

  async fetch(url: URL): Promise<FetchedDocument> {
    const deadline = Date.now() + this.options.timeoutMs;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: { address: string; family: number }[];
    const literal = isIP(host);
    if (literal !== 0) {
      addresses = [{ address: host, family: literal }];
    } else {
      try {
        addresses = await withDeadline(lookup(host, { all: true, verbatim: true }), deadline, 'resolving the host timed out');
      } catch (error) {
        if (error instanceof ClientDocumentError) throw error;
        throw new ClientDocumentError(`the host ${host} does not resolve`);
      }
      if (addresses.length === 0) throw new ClientDocumentError(`the host ${host} does not resolve`);
    }
    if (!this.options.allowPrivateAddresses) {
      const blocked = addresses.find((a) => isBlockedAddress(a.address));
      if (blocked) throw new ClientDocumentError(`the host resolves to a private, loopback or link-local address (${blocked.address}); refused`);
    }
    let lastError: unknown;
    for (const address of addresses) {
      try {
        return await this.get(url, host, literal !== 0, address, deadline);
      } catch (error) {
        lastError = error;
        // Only a refused or unreachable address moves on to the next checked one.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ECONNREFUSED' && code !== 'EHOSTUNREACH' && code !== 'ENETUNREACH' && code !== 'EADDRNOTAVAIL') break;
      }
    }
    if (lastError instanceof ClientDocumentError) throw lastError;
    throw new ClientDocumentError(`the document could not be fetched (${(lastError as Error).message})`);
  }

  private get(url: URL, host: string, isLiteral: boolean, address: { address: string; family: number }, deadline: number): Promise<FetchedDocument> {
    const { maxBytes } = this.options;
    return new Promise((resolve, reject) => {
      const remaining = Math.max(1, deadline - Date.now());
      const req = request({
        host: address.address,
        family: address.family,
        port: url.port ? Number(url.port) : 443,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        servername: isLiteral ? '' : host,
        headers: { host: url.host, accept: 'application/json', 'user-agent': 'crypto-gateway-oauth/1' },
        agent: false,
        ...(this.ca ? { ca: this.ca } : {}),
      });
      const timer = setTimeout(() => req.destroy(new ClientDocumentError(`the fetch took longer than ${this.options.timeoutMs} ms`)), remaining);
      const fail = (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      };
      req.on('error', fail);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          req.destroy();
          return fail(new ClientDocumentError(`the document URL answered a redirect (${status}); redirects are not followed`));
        }
        if (status !== 200) {
          res.resume();
          req.destroy();
          return fail(new ClientDocumentError(`the document URL answered HTTP ${status}`));
        }
        const type = String(res.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        if (type !== 'application/json') {
          res.resume();
          req.destroy();
          return fail(new ClientDocumentError('the document is not application/json'));
        }
        const declared = Number(res.headers['content-length'] ?? '0');
        if (declared > maxBytes) {
          req.destroy();
          return fail(new ClientDocumentError(`the document is larger than ${maxBytes} bytes`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy();
            fail(new ClientDocumentError(`the document is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          if (size > maxBytes) return;
          try {
            const document: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            const cacheControl = res.headers['cache-control'];
            resolve({ document, maxAgeSeconds: cacheControlMaxAge(Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl) });
          } catch {
            reject(new ClientDocumentError('the document is not valid JSON'));
          }
        });
      });
      req.end();
    });
  }
}

async function withDeadline<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ClientDocumentError(message)), Math.max(1, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
