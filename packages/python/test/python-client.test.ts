/**
 * Runs the Python client's pytest suite (packages/python/tests) against a real gateway with workers:
 * this test starts the gateway, two sandbox projects and a testnet project and passes them in the environment, with a
 * webhook signature vector from @gw/webhook-verify so both languages are checked to sign alike.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { signWebhook } from '@gw/webhook-verify';
import { plugins } from '@gw/app-gateway';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { projectWithPools, type TestProject } from '@gw/testing';

let gw: TestKernel, account: SandboxClient, fresh: SandboxClient, live: TestProject;
// Every plugin of this build: the refunds and payouts routes are the payouts plugin's.
test.before(async () => {
  gw = await startSandboxKernel({}, plugins);
  account = await sandboxClient(gw);
  fresh = await sandboxClient(gw);
  // A testnet project (a live secret) beside the sandbox one: the same client code runs with both.
  const operator = await gw.kernel.cradle.tenancyOperators.create('python-client', CLI_ACTOR);
  live = await projectWithPools(gw, operator.id, ['eth'], 'testnet');
});
test.after.always(() => gw?.close());

test('the Python client passes its end-to-end suite against the gateway', async (t) => {
  const vectorInput = {
    secrets: ['s1', 'sk_sandbox_two'],
    rawBody: JSON.stringify({ event_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', note: 'naïve — ✓' }),
    timestamp: 1_790_000_000,
  };
  const vector = { ...vectorInput, header: signWebhook(vectorInput) };
  const child = spawn('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
    cwd: new URL('..', import.meta.url).pathname,
    env: {
      ...process.env,
      GATEWAY_URL: gw.url,
      GATEWAY_PROJECT_ID: account.projectId,
      GATEWAY_API_SECRET: account.secret,
      GATEWAY_FRESH_SANDBOX_PROJECT_ID: fresh.projectId,
      GATEWAY_FRESH_SANDBOX_API_SECRET: fresh.secret,
      GATEWAY_LIVE_PROJECT_ID: live.projectId,
      GATEWAY_LIVE_API_SECRET: live.secret,
      WEBHOOK_VECTOR: JSON.stringify(vector),
      PYTHONDONTWRITEBYTECODE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.teardown(() => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.is(code, 0, output);
  t.regex(output, /\b16 passed\b/, output);
  t.notRegex(output, /skipped|xfail/, output);
});
