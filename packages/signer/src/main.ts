import { runSigner } from './cli.js';

// The `gateway-signer` command (bin/gateway-signer.mjs runs this file).
process.exitCode = await runSigner(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
