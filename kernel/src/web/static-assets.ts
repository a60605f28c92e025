import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { coreErrors } from '../errors/core-errors.js';
import type { RouteDefinition } from '../http/route.js';

/** One file a page loads: served under the set's prefix by `name`. */
export interface StaticAsset {
  /** File name in the URL, `[A-Za-z0-9._-]+`. */
  readonly name: string;
  /** Content type, e.g. `text/css; charset=utf-8`. */
  readonly type: string;
  /** Absolute path of the file to serve (read once, when the set is built). */
  readonly file?: string;
  /** Or the content itself. */
  readonly content?: string | Buffer;
}

/** A set of assets served by the gateway itself (no CDN): stylesheets, scripts, images. */
export interface StaticAssets {
  /**
   * The URL of an asset, with its content hash (`?v=`), so a page always loads the version it was
   * rendered with and browsers may cache it forever.
   */
  url(name: string): string;
  /** The hidden GET route that serves the set (mount it with a plugin's routes). */
  readonly routes: readonly RouteDefinition[];
}

const NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Builds a set of static assets under `prefix` (e.g. `/dashboard/assets`). Files are read once
 * here; a missing file stops start-up. A request with the current hash gets a year of immutable
 * caching, any other a revalidation; `If-None-Match` is honoured.
 */
export function staticAssets(prefix: string, assets: readonly StaticAsset[]): StaticAssets {
  const byName = new Map<string, { type: string; body: Buffer; hash: string }>();
  for (const asset of assets) {
    if (!NAME.test(asset.name)) throw new Error(`static asset name "${asset.name}" is not [A-Za-z0-9._-]+`);
    if (byName.has(asset.name)) throw new Error(`static asset "${asset.name}" is declared twice under ${prefix}`);
    const body = asset.file !== undefined ? readFileSync(asset.file) : Buffer.from(asset.content ?? '');
    byName.set(asset.name, { type: asset.type, body, hash: createHash('sha256').update(body).digest('hex').slice(0, 16) });
  }
  const route: RouteDefinition = {
    method: 'GET',
    path: `${prefix}/:name`,
    hidden: true,
    summary: `Static assets under ${prefix}`,
    auth: 'none',
    handler: async ({ ctx, params }) => {
      const asset = byName.get((params as { name: string }).name);
      if (!asset) throw coreErrors.not_found();
      const etag = `"${asset.hash}"`;
      const headers = {
        'Content-Type': asset.type,
        ETag: etag,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': ctx.query['v'] === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache',
      };
      if (ctx.get('If-None-Match') === etag) return { status: 304, headers };
      return { status: 200, headers, body: asset.body };
    },
  };
  return {
    url(name) {
      const asset = byName.get(name);
      if (!asset) throw new Error(`no static asset "${name}" under ${prefix}`);
      return `${prefix}/${name}?v=${asset.hash}`;
    },
    routes: [route],
  };
}
