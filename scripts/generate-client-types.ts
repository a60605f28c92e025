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
import { documentOfThisBuild } from '@gw/app-gateway/openapi-document';
import { renderOperations, renderPythonOperations } from '../packages/client/scripts/render-operations.ts';
import { writeOrCheckGenerated } from './generated-file.js';

const document = documentOfThisBuild();
const outputs: [string, string][] = [
  ['packages/client/src/generated/operations.ts', renderOperations(document)],
  ['packages/python/gateway_client/_operations.py', renderPythonOperations(document)],
];
const current = outputs.map(([name, text]) => writeOrCheckGenerated(name, text, 'pnpm client:generate'));
if (current.includes(false)) process.exit(1);
