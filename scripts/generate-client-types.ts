/**
 * Generates packages/client/src/generated/operations.ts, the typed table of every signed REST
 * operation of the OpenAPI document, from the routes of this build (`@gw/app-gateway`).
 *
 *   node --import tsx scripts/generate-client-types.ts           writes the file
 *   node --import tsx scripts/generate-client-types.ts --check   exits 1 when the file is stale
 *
 * The client's test also compares the document of this build with the one a running gateway serves.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { documentOfThisBuild } from './openapi-document.ts';
import { renderOperations } from '../packages/client/scripts/render-operations.ts';

const OUTPUT = fileURLToPath(new URL('../packages/client/src/generated/operations.ts', import.meta.url));
const OUTPUT_NAME = 'packages/client/src/generated/operations.ts';

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
