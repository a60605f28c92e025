/**
 * Generates packages/client/src/generated/operations.ts, the typed table of every signed REST
 * operation of the OpenAPI document, from the routes of this build (`@gw/app-gateway`), and the
 * Python client's table of the same operations (packages/python/gateway_client/_operations.py).
 *
 *   node --import tsx scripts/generate-client-types.ts           writes the files
 *   node --import tsx scripts/generate-client-types.ts --check   exits 1 when a file is stale
 *
 * The client's test also compares the document of this build with the one a running gateway serves.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { documentOfThisBuild } from '@gw/app-gateway/openapi-document';
import { renderOperations, renderPythonOperations } from '../packages/client/scripts/render-operations.ts';

const document = documentOfThisBuild();
const outputs: [string, string][] = [
  ['packages/client/src/generated/operations.ts', renderOperations(document)],
  ['packages/python/gateway_client/_operations.py', renderPythonOperations(document)],
];
let stale = false;
for (const [name, text] of outputs) {
  const path = fileURLToPath(new URL(`../${name}`, import.meta.url));
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error(`${name} is stale: run pnpm client:generate (node --import tsx scripts/generate-client-types.ts) and commit the result`);
      stale = true;
    }
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${name}`);
  }
}
if (stale) process.exit(1);
