import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Type from 'typebox';
import kernelPackage from '../../package.json' with { type: 'json' };
import { coreErrors } from '../errors/core-errors.js';
import type { SignedQueryPolicy } from './request-signature.js';
import { buildOpenApiDocument, type AnyErrorCatalogue, type OpenApiDocument } from './openapi.js';
import { defineRoute, type RouteDefinition } from './route.js';

/** Where the document and the reference page are served. */
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const API_REFERENCE_PATH = '/api/v1/docs';
const ASSETS_PATH = `${API_REFERENCE_PATH}/assets`;

/** What the OpenAPI routes need from the kernel. */
export interface OpenApiRoutesOptions {
  /**
   * The kernel's route list. Read when the document is first requested, so it includes every route
   * pushed after these (plugin routes).
   */
  readonly routes: readonly RouteDefinition[];
  /** The enabled plugins' error catalogues (the kernel's own are always included). */
  readonly errorCatalogues: readonly AnyErrorCatalogue[];
  /** `http.baseUrl`, for `servers`. */
  readonly baseUrl?: string | undefined;
  /** `security.signedQuery`, for the signing text. */
  readonly signedQuery?: SignedQueryPolicy;
}

// Swagger UI's self-contained bundle (no CDN, no fonts from elsewhere), served from node_modules.
const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    supportedSubmitMethods: [],
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    tryItOutEnabled: false
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gateway API reference</title>
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<noscript>This page needs JavaScript. The OpenAPI document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="reference"></div>
<script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${ASSETS_PATH}/reference.js"></script>
</body>
</html>
`;

/**
 * The reference page's policy (issue 33 finding 19): scripts, styles, images and fetches from the
 * gateway only, so the page works offline and nothing injected into it (a description in the
 * document) can load or send anything elsewhere. Swagger UI sets `style` attributes from its
 * script (React), hence 'unsafe-inline' for styles only; its icons are `data:` images.
 */
export const API_REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The files the page loads: ours inline, Swagger UI's read from its package on first use. */
const ASSETS: Readonly<Record<string, { type: string; file?: string; text?: string }>> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  'reference.js': { type: 'text/javascript; charset=utf-8', text: INIT_SCRIPT },
};

/**
 * `GET /api/v1/openapi.json` (the document, built once on first request from the final route list),
 * `GET /api/v1/docs` (a Swagger UI reference page that works offline) and its assets under
 * `/api/v1/docs/assets/` (hidden from the document). No authentication.
 */
export function openApiRoutes(options: OpenApiRoutesOptions): RouteDefinition[] {
  let document: OpenApiDocument | undefined;
  const assetCache = new Map<string, Buffer | string>();
  return [
    {
      method: 'GET',
      path: OPENAPI_PATH,
      summary: 'This API as an OpenAPI 3.1 document.',
      description: 'Generated from the mounted routes and their schemas; the reference page at /api/v1/docs renders it.',
      tags: ['system'],
      auth: 'none',
      responses: {
        200: Type.Object(
          { openapi: Type.Literal('3.1.0'), info: Type.Object({}, { additionalProperties: true }), paths: Type.Object({}, { additionalProperties: true }) },
          { additionalProperties: true, description: 'The OpenAPI document.' },
        ),
      },
      handler: async () => {
        document ??= buildOpenApiDocument({
          routes: options.routes,
          errorCatalogues: options.errorCatalogues,
          version: kernelPackage.version,
          ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
          ...(options.signedQuery ? { signedQuery: options.signedQuery } : {}),
          tagDescriptions: { system: 'Liveness, readiness, metrics and this API description.' },
        });
        return { body: document };
      },
    },
    {
      method: 'GET',
      path: API_REFERENCE_PATH,
      summary: 'Browsable API reference (HTML).',
      description: `Renders ${OPENAPI_PATH}; every asset it loads is served by the gateway, so it works offline.`,
      tags: ['system'],
      auth: 'none',
      responses: { 200: Type.String({ contentMediaType: 'text/html', description: 'The reference page.' }) },
      handler: async () => ({
        headers: {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': API_REFERENCE_CSP,
          'X-Content-Type-Options': 'nosniff',
          'Referrer-Policy': 'no-referrer',
        },
        body: PAGE,
      }),
    },
    defineRoute({
      method: 'GET',
      path: `${ASSETS_PATH}/:file`,
      summary: 'Static assets of the reference page.',
      auth: 'none',
      hidden: true,
      params: Type.Object({ file: Type.String() }),
      handler: async ({ params }) => {
        const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
        if (!asset) throw coreErrors.not_found({ message: 'No such asset.' });
        let body = assetCache.get(params.file);
        if (body === undefined) {
          body = asset.text ?? (await readFile(join(swaggerUiDir, asset.file!)));
          assetCache.set(params.file, body);
        }
        return { headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=3600' }, body };
      },
    }),
  ];
}
