import { pino, type Logger } from 'pino';
import type { AnyPlugin } from '../plugin.js';
import type { ChainModule } from '@gw/chain-api';
import { createKernel, type Kernel, type KernelRole } from '../kernel.js';
import { loadConfig } from '../config/load-config.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { withOfflineConfig } from './offline-config.js';

export interface TestKernelOptions {
  readonly plugins: readonly AnyPlugin[];
  readonly chains?: readonly ChainModule[];
  readonly role?: KernelRole;
  /**
   * Dotted config overrides, e.g. `{ 'security.keyRotationOverlapSeconds': 0 }`. Settings that would
   * reach the internet are off unless set here (`OFFLINE_PLUGIN_CONFIG`: the watchers' public providers).
   */
  readonly config?: Record<string, unknown>;
  /** Reuse a database (several kernels against one database); default: a fresh one. */
  readonly database?: TestDatabase;
  /** The kernel's logger (a test that reads the log); default: silent, or GW_TEST_LOG_LEVEL. */
  readonly logger?: Logger;
}

export interface TestKernel {
  readonly kernel: Kernel;
  readonly database: TestDatabase;
  /** Base URL of the listening server (gateway and all roles). */
  readonly url: string;
  /** Stops the kernel and drops the database unless it was passed in. */
  close(): Promise<void>;
}

/**
 * Starts a real kernel on a real PostgreSQL database for a test: port 0, silent logs, a fixed
 * development master key, no config file, nothing that reaches the internet by default.
 */
export async function startTestKernel(options: TestKernelOptions): Promise<TestKernel> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    env: {},
    file: false,
    overrides: withOfflineConfig(options.plugins, {
      'database.url': database.url,
      'http.port': 0,
      'http.host': '127.0.0.1',
      'log.level': 'silent',
      'security.masterKey': '0f'.repeat(32),
      ...options.config,
    }),
  });
  const kernel = createKernel({
    config,
    plugins: options.plugins,
    chains: options.chains ?? [],
    role: options.role ?? 'all',
    logger: options.logger ?? pino({ level: process.env['GW_TEST_LOG_LEVEL'] ?? 'silent' }),
  });
  try {
    await kernel.start();
  } catch (error) {
    await kernel.stop().catch(() => undefined);
    if (!options.database) await database.drop().catch(() => undefined);
    throw error;
  }
  return {
    kernel,
    database,
    url: kernel.url ?? '',
    async close() {
      await kernel.stop();
      if (!options.database) await database.drop();
    },
  };
}
