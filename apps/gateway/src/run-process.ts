import { ConfigError, createKernel, loadConfig, type Kernel, type KernelRole } from '@gw/kernel';
import { chains, plugins } from './composition.js';
import { startBanner, startBannerFacts } from './start-banner.js';

/**
 * Runs a long-lived process of the given role: loads config (a bad value stops start-up naming the
 * key), starts the kernel, prints the start-up line, and stops gracefully on SIGTERM/SIGINT.
 * Exits 1 with a one-line reason when start-up fails.
 */
export async function runProcess(role: Exclude<KernelRole, 'cli'>, afterStart?: (kernel: Kernel) => Promise<void>): Promise<Kernel | undefined> {
  let kernel: Kernel | undefined;
  try {
    const config = loadConfig();
    kernel = createKernel({ config, plugins, chains, role });
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      kernel!.logger.info({ signal }, 'shutting down');
      await kernel!.stop();
      process.exit(0);
    };
    // `on`, not `once`: the handler must stay registered while the async stop runs, or a loader's
    // own signal handler (tsx) sees itself alone and exits the process mid-drain.
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
    await kernel.start();
    // Before the start-up line, so whoever waits for that line also sees what this printed.
    if (afterStart) await afterStart(kernel);
    if (role === 'worker') {
      if (kernel.url) kernel.logger.info({ url: kernel.url }, `worker health and metrics on ${kernel.url}`);
      process.stdout.write(`Worker started (queues: ${kernel.plugins.length} plugins loaded)${kernel.url ? `; health and metrics on ${kernel.url}` : ''}\n`);
    } else if (kernel.url) {
      kernel.logger.info({ url: kernel.url }, `gateway listening on ${kernel.url}`);
      // One write, so no log line lands inside the message.
      process.stdout.write(`Gateway ${role === 'all' ? '(HTTP + worker) ' : ''}listening on ${kernel.url}\n${startBanner(startBannerFacts(kernel))}`);
    }
    return kernel;
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `Start-up failed: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    if (!(error instanceof ConfigError)) kernel?.logger.error({ err: error }, 'start-up failed');
    await kernel?.stop().catch(() => undefined);
    process.exit(1);
  }
}
