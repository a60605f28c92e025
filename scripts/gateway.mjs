/**
 * The operator CLI's launcher (`./gateway`, `pnpm gateway`): runs the compiled CLI
 * (apps/cli/dist/main.js, made by `pnpm build`, which `pnpm start` runs) while it is current, else
 * the TypeScript sources through tsx. The compiled CLI starts in under a second; through tsx every
 * command compiled the whole gateway first and took several (issue 33 finding 8, docs/performance.md).
 *
 * Current means: no workspace file the bundle was built from (apps/cli/dist/inputs.json), nor the
 * install's marker, is newer than the bundle (compiled-is-current.mjs); an edited source is never
 * run from a stale build. GW_CLI_FROM_SOURCE=1 always runs the sources. Plain JavaScript, so it
 * needs no compiler itself.
 */
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { compiledIsCurrent } from './compiled-is-current.mjs';

// V8's compiled code of every module, kept on disk between runs (keyed by content and Node
// version): about a tenth of the CLI's start-up CPU (docs/performance.md).
enableCompileCache();

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'apps/cli/dist/main.js');

if (process.env.GW_CLI_FROM_SOURCE !== '1' && compiledIsCurrent(ROOT, DIST)) {
  // What --enable-source-maps does for `pnpm serve`: stack traces name the TypeScript files.
  process.setSourceMapsEnabled(true);
  await import(DIST);
} else {
  if (process.env.GW_CLI_FROM_SOURCE !== '1') {
    process.stderr.write(
      'gateway: the compiled CLI is missing or older than the sources; running them through tsx (slower). `npx -y pnpm@10.34.9 build` makes it current.\n',
    );
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(join(ROOT, 'apps/cli/src/main.ts'));
}
