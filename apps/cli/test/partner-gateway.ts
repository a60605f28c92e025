import type { TestFn } from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chains, plugins } from '@gw/app-gateway';
import type { TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, Receiver, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { captureCli, type CliRun } from '@gw/testing';
import { runCli } from '../src/cli.js';

/** What {@link partnerGateway} starts for a test file; its fields are set once `test.before` has run. */
export interface PartnerGateway {
  /** A sandbox gateway with workers and every plugin of this build. */
  gw: TestKernel;
  /** The project's webhook receiver. */
  receiver: Receiver;
  /** A sandbox project whose webhook URL is the receiver's. */
  account: SandboxClient;
  /** A HOME of the file's own, so no credentials file of the machine is read. */
  home: string;
  /** Runs a partner command with the project's credentials in the environment. */
  partner(...argv: string[]): Promise<CliRun>;
}

/**
 * Starts, for the partner commands' test files, a sandbox gateway (with `config`), a webhook
 * receiver, a sandbox project posting to it and a HOME named after `homePrefix`, and stops them
 * after the file's tests.
 */
export function partnerGateway(test: TestFn, homePrefix: string, config: Record<string, unknown> = {}): PartnerGateway {
  const fixture = {
    partner(...argv: string[]): Promise<CliRun> {
      const env = {
        GATEWAY_URL: fixture.gw.url,
        GATEWAY_PROJECT_ID: fixture.account.projectId,
        GATEWAY_API_SECRET: fixture.account.secret,
        HOME: fixture.home,
      };
      return captureCli((io) => runCli(argv, { plugins, chains, env, io }));
    },
  } as PartnerGateway;
  test.before(async () => {
    fixture.gw = await startSandboxKernel(config, plugins);
    fixture.receiver = await Receiver.start();
    fixture.account = await sandboxClient(fixture.gw, fixture.receiver);
    fixture.home = mkdtempSync(join(tmpdir(), homePrefix));
  });
  test.after.always(async () => {
    await fixture.gw?.close();
    await fixture.receiver?.close();
    if (fixture.home) rmSync(fixture.home, { recursive: true, force: true });
  });
  return fixture;
}
