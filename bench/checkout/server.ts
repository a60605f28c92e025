/**
 * The gateway side of the checkout benchmark, in its own process so its CPU can be measured alone:
 * the real kernel (role `gateway`, the composition's plugins, checkout included) on the given
 * database. Prints `{"url": ...}` on stdout when ready; stops on SIGTERM.
 */
import { createBenchKernel } from '../bench-kernel.js';
import { CHECKOUT_BENCH_OVERRIDES } from './config.js';

const [databaseUrl] = process.argv.slice(2);
if (!databaseUrl) {
  console.error('usage: server.ts <database-url>');
  process.exit(2);
}
const kernel = createBenchKernel(databaseUrl, { role: 'gateway', overrides: CHECKOUT_BENCH_OVERRIDES });
await kernel.start();
console.log(JSON.stringify({ url: kernel.url }));
process.on('SIGTERM', () => {
  void kernel.stop().then(() => process.exit(0));
});
