import { chains, plugins } from '@gw/app-gateway';
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), {
  plugins,
  chains,
  io: { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
});
process.exit(code);
