/**
 * The two instances the checkout and sessions benchmarks run on one fresh database: the gateway in
 * a process of its own (so its CPU is measured alone) and, in this process, a writer kernel that
 * sets up and changes what the pages show.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Kernel } from '@gw/kernel';
import { benchPostgres } from '../bench-database.js';
import { createBenchKernel } from '../bench-kernel.js';
import { minimalEnv, startTsxChild, stopChild } from '../child-process.js';
import { streamAgent } from './status-streams.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The gateway's process and its base URL. */
export interface BenchGateway {
  readonly child: ChildProcess;
  readonly url: string;
}

/**
 * Runs `body` on a fresh database with the gateway started from `serverScript` (a file that prints
 * `{"url": ...}` once ready) and a started writer kernel (role `cli`, `overrides` on top of the
 * shared settings); then stops both, the database and the status streams' sockets.
 */
export async function withGatewayAndWriter(
  serverScript: URL,
  overrides: Record<string, unknown>,
  body: (writer: Kernel, gateway: BenchGateway) => Promise<void>,
): Promise<void> {
  const postgres = await benchPostgres();
  try {
    await postgres.withDatabase(async (databaseUrl) => {
      const writer = createBenchKernel(databaseUrl, { role: 'cli', overrides });
      await writer.start();
      const { child, line } = await startTsxChild([fileURLToPath(serverScript), databaseUrl], /^\{"url":/, { cwd: ROOT, env: minimalEnv() });
      try {
        await body(writer, { child, url: (JSON.parse(line) as { url: string }).url });
      } finally {
        await stopChild(child);
        await writer.stop();
      }
    });
  } finally {
    await postgres.stop();
    streamAgent.destroy();
  }
}
