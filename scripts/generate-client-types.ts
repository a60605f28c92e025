/**
 * Generates packages/client/src/generated/operations.ts, the typed table of every signed REST
 * operation of the OpenAPI document, from the routes of this build (`@gw/app-gateway`).
 *
 *   node --import tsx scripts/generate-client-types.ts           writes the file
 *   node --import tsx scripts/generate-client-types.ts --check   exits 1 when the file is stale
 *
 * The document is built without a database: route factories only keep the cradle for their
 * handlers, so a stand-in cradle is enough to list the routes and their schemas. The client's test
 * also renders the document the running gateway serves and compares (packages/client/test).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { plugins } from '@gw/app-gateway';
import { buildOpenApiDocument, type OpenApiDocument } from '@gw/kernel';
import { renderOperations } from '../packages/client/scripts/render-operations.ts';

const OUTPUT = fileURLToPath(new URL('../packages/client/src/generated/operations.ts', import.meta.url));
const OUTPUT_NAME = 'packages/client/src/generated/operations.ts';

/** A cradle that answers every lookup with itself, and a URL-like string when converted. */
const standIn: any = new Proxy(function standIn() {}, {
  get: (_target, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => 'http://stand-in.invalid' : standIn),
  apply: () => standIn,
});

export function documentOfThisBuild(): OpenApiDocument {
  const routes = plugins.flatMap((plugin) => plugin.routes?.(standIn) ?? []);
  return buildOpenApiDocument({ routes, errorCatalogues: plugins.flatMap((plugin) => plugin.errors ?? []), version: '0.1.0' });
}

const text = renderOperations(documentOfThisBuild());
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(OUTPUT, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error(`${OUTPUT_NAME} is stale: run pnpm client:generate (node --import tsx scripts/generate-client-types.ts) and commit the result`);
    process.exit(1);
  }
} else {
  writeFileSync(OUTPUT, text);
  console.log(`wrote ${OUTPUT_NAME}`);
}
