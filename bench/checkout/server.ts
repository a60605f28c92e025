/**
 * The gateway side of the checkout benchmark, in its own process so its CPU can be measured alone:
 * the real kernel (role `gateway`, the composition's plugins, checkout included) on the given
 * database. Prints `{"url": ...}` on stdout when ready; stops on SIGTERM.
 */
import { pino } from 'pino';
import { createKernel, loadConfig } from '@gw/kernel';
import { chains, plugins } from '@gw/app-gateway';
import { benchConfig } from './config.js';

const [databaseUrl] = process.argv.slice(2);
if (!databaseUrl) {
  console.error('usage: server.ts <database-url>');
  process.exit(2);
}
const kernel = createKernel({
  config: loadConfig({ env: {}, file: false, overrides: benchConfig(databaseUrl) }),
  plugins,
  chains,
  role: 'gateway',
  logger: pino({ level: 'warn' }),
});
await kernel.start();
console.log(JSON.stringify({ url: kernel.url }));
process.on('SIGTERM', () => {
  void kernel.stop().then(() => process.exit(0));
});
