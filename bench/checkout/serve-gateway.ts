import { createBenchKernel } from '../bench-kernel.js';

/**
 * The gateway side of a page benchmark, run as its own process so its CPU can be measured alone:
 * the real kernel (role `gateway`, the composition's plugins) on the database named by the first
 * argument, with `overrides`. Prints `{"url": ...}` on stdout when ready; stops on SIGTERM.
 */
export async function serveBenchGateway(overrides: Record<string, unknown>): Promise<void> {
  const [databaseUrl] = process.argv.slice(2);
  if (!databaseUrl) {
    console.error('usage: server.ts <database-url>');
    process.exit(2);
  }
  const kernel = createBenchKernel(databaseUrl, { role: 'gateway', overrides });
  await kernel.start();
  console.log(JSON.stringify({ url: kernel.url }));
  process.on('SIGTERM', () => {
    void kernel.stop().then(() => process.exit(0));
  });
}
