/**
 * Builds the publishable client into packages/client/dist (an ES module bundle, a CommonJS bundle,
 * their type declarations), with the workspace's one build of partner packages
 * (scripts/partner-packages.ts, which also packs the tarball). The client's tests import it.
 *
 *   node --import tsx packages/client/scripts/build.ts
 */
import { fileURLToPath } from 'node:url';
import { buildPartnerPackage } from '../../../scripts/partner-packages.ts';

export function buildClient(): Promise<string> {
  return buildPartnerPackage('client');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`built ${await buildClient()}`);
}
