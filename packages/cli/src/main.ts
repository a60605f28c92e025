/**
 * The `gateway` executable of `@gw/cli` (dist/gateway.js, one bundled file: scripts/partner-packages.ts).
 */
import { runGatewayCli } from './gateway-cli.js';

const code = await runGatewayCli(process.argv.slice(2), {
  io: { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
  env: process.env,
});
// Not left to the event loop: the HTTP client's idle keep-alive sockets would hold the process open.
process.exit(code);
