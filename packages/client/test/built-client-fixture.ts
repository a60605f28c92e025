import type { TestFn } from 'ava';
import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { plugins } from '@gw/app-gateway';
import type { TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { stopAll } from '@gw/testing';
import { buildClientApart } from '../scripts/build.ts';

/** The client's module as the build emits it (dist/esm), typed as its source. */
export type ClientModule = typeof import('../src/index.ts');

/** What {@link builtClientFixture} starts for a test file; its fields are set once `test.before` has run. */
export interface BuiltClientFixture {
  /** The built client (dist/esm), imported as a partner would. */
  sdk: ClientModule;
  /** A sandbox gateway with workers and every plugin of this build. */
  gw: TestKernel;
  /** A sandbox project on it. */
  account: SandboxClient;
  /** A client of the project's credentials, on the gateway or on `baseUrl` (a proxy in front of it). */
  client(baseUrl?: string): InstanceType<ClientModule['GatewayClient']>;
}

/**
 * Builds the client, starts a sandbox gateway with every plugin of this build and a sandbox project
 * on it for a test file of the client's resources, and stops the gateway after the file's tests.
 */
export function builtClientFixture(test: TestFn): BuiltClientFixture {
  const fixture = {
    client: (baseUrl?: string) =>
      new fixture.sdk.GatewayClient({ baseUrl: baseUrl ?? fixture.gw.url, projectId: fixture.account.projectId, apiSecret: fixture.account.secret }),
  } as BuiltClientFixture;
  let distDir: string | undefined;
  test.before(async () => {
    distDir = await buildClientApart();
    fixture.sdk = (await import(pathToFileURL(`${distDir}/esm/index.js`).href)) as ClientModule;
    fixture.gw = await startSandboxKernel({}, plugins);
    fixture.account = await sandboxClient(fixture.gw);
  });
  test.after.always(async () => {
    await stopAll(fixture.gw);
    if (distDir) rmSync(distDir, { recursive: true, force: true });
  });
  return fixture;
}
