import type { ExecutionContext } from 'ava';
import { pino } from 'pino';
import { chains, plugins } from '@gw/app-gateway';
import { createKernel, loadConfig, type AnyPlugin, type Kernel } from '@gw/kernel';
import { createTestDatabase, withOfflineConfig } from '@gw/kernel/testing';

/**
 * A kernel of the composition's plugins and chains, then `extra` (role `cli`, silent, the test
 * master key, nothing reaching the internet) on the database at `databaseUrl`.
 */
export function compositionKernel(databaseUrl: string, extra: readonly AnyPlugin[] = []): Kernel {
  const all = [...plugins, ...extra];
  return createKernel({
    config: loadConfig({
      env: {},
      file: false,
      overrides: withOfflineConfig(all, { 'log.level': 'silent', 'security.masterKey': '0f'.repeat(32), 'database.url': databaseUrl }),
    }),
    plugins: all,
    chains,
    role: 'cli',
    logger: pino({ level: 'silent' }),
  });
}

/** The composition's kernel on a fresh database, connected (wired, every declaration checked); stopped and the database dropped after the test. */
export async function connectedComposition(t: ExecutionContext): Promise<Kernel> {
  const database = await createTestDatabase();
  const kernel = compositionKernel(database.url);
  t.teardown(async () => {
    await kernel.stop();
    await database.drop();
  });
  await kernel.connect();
  return kernel;
}

/**
 * Asserts that start-up refuses the composition with `probe` added, and returns the refusal's
 * message. Wiring connects nothing (the declaration checks run before any query), so the database
 * it names does not exist.
 */
export async function startUpRefusal(t: ExecutionContext, probe: AnyPlugin): Promise<string | undefined> {
  const kernel = compositionKernel('postgres://nobody@127.0.0.1:1/none', [probe]);
  try {
    const error = await t.throwsAsync(kernel.connect());
    return error?.message;
  } finally {
    await kernel.stop();
  }
}
