/**
 * Builds the publishable client into packages/client/dist (an ES module bundle, a CommonJS bundle,
 * their type declarations), with the workspace's one build of partner packages
 * (scripts/partner-packages.ts, which also packs the tarball). The client's tests import such a build,
 * each test file its own (`buildClientApart`).
 *
 *   node --import tsx packages/client/scripts/build.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPartnerPackage } from '../../../scripts/partner-packages.ts';

/** Builds the client into `outDir` (default packages/client/dist, emptied first); returns the folder. */
export function buildClient(outDir?: string): Promise<string> {
  return buildPartnerPackage('client', ...(outDir === undefined ? [] : [outDir]));
}

/**
 * Builds the client into a new temporary folder of its own, for a test file. The client's test
 * files run at once, in several processes: building into the shared dist, one emptied it while
 * another was importing from it. The caller removes the folder.
 */
export function buildClientApart(): Promise<string> {
  return buildClient(mkdtempSync(join(tmpdir(), 'gw-client-dist-')));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`built ${await buildClient()}`);
}
