import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createTestDatabase, waitFor, type TestDatabase } from '@gw/kernel/testing';
import { baseEnv, ROOT, runCliProcess, runProcess, startApp, waitForUrl } from '@gw/testing';

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

/** Runs a TypeScript file of the repository to completion on this Node; collects its output. */
function runScript(file: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env: { ...baseEnv(), ...env } });
}

test.serial(
  'a new user: the first start prints sandbox credentials, and the partner example drives an invoice to paid, reverted and back, receiving each signed webhook once (and the duplicate as a duplicate)',
  async (t) => {
    const credentialsDir = mkdtempSync(join(tmpdir(), 'gw-first-start-'));
    t.teardown(() => rmSync(credentialsDir, { recursive: true, force: true }));
    const credentialsFile = join(credentialsDir, 'credentials.txt');
    const env = {
      DATABASE_URL: database.url,
      PORT: '0',
      GW_MASTER_KEY: 'cd'.repeat(32),
      LOG_LEVEL: 'warn',
      GW__plugins__webhooks__allowPrivateTargets: 'true',
      GW__plugins__sandbox__firstStartCredentialsFile: credentialsFile,
    };
    const app = startApp('all', env);
    t.teardown(() => {
      if (app.child.exitCode === null) app.child.kill('SIGKILL');
    });
    const url = await waitForUrl(app);
    // Not a terminal: the secrets are in a file only its owner can read, which the log names.
    t.true(app.output().includes(credentialsFile), app.output());
    t.is(statSync(credentialsFile).mode & 0o777, 0o600);
    const output = readFileSync(credentialsFile, 'utf8');
    const projectId = /Project id \(X-Project-Id\)\s+(\S+)/.exec(output)?.[1];
    const secret = /API secret \(sk_sandbox_\)\s+(sk_sandbox_\S+)/.exec(output)?.[1];
    t.truthy(projectId, output);
    t.truthy(secret, output);
    t.regex(output, /PAT \(scope sandbox:simulate\)\s+svc_pat_\S+/);
    const pat = /svc_pat_\S+/.exec(output)![0];
    t.false(app.output().includes(secret!), 'the API secret never reaches stdout or stderr');
    t.false(app.output().includes(pat), 'the PAT never reaches stdout or stderr');

    const receiverProcess = spawn(process.execPath, ['--import', 'tsx', 'examples/sandbox-partner/receiver.ts'], {
      cwd: ROOT,
      env: { ...baseEnv(), API_SECRET: secret!, PORT: '0' },
    });
    let received = '';
    receiverProcess.stdout.on('data', (chunk: Buffer) => (received += chunk.toString()));
    t.teardown(() => {
      receiverProcess.kill('SIGKILL');
    });
    const receiverUrl = (await waitFor(async () => /listening on (http:\/\/\S+)/.exec(received)?.[1], 30_000))!;

    const driven = await runScript('examples/sandbox-partner/drive.ts', {
      GATEWAY_URL: url,
      PROJECT_ID: projectId!,
      API_SECRET: secret!,
      CALLBACK_URL: `${receiverUrl}/hooks`,
    });
    t.is(driven.code, 0, driven.stdout + driven.stderr);
    const steps = driven.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { step: string; body: any });
    const eventIds = steps.filter((s) => ['detect', 'paid', 'reorg', 'reconfirm'].includes(s.step)).map((s) => s.body.event_id as string);
    t.is(new Set(eventIds).size, 4);
    const duplicateOf = steps.find((s) => s.step === 'duplicate-delivery')!.body.event_id;
    t.is(duplicateOf, eventIds[3]);

    const lines = () =>
      received
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as { accepted?: any; duplicate?: string; rejected?: string });
    await waitFor(async () => lines().filter((l) => l.accepted).length === 4 && lines().some((l) => l.duplicate), 90_000);
    const accepted = lines()
      .filter((l) => l.accepted)
      .map((l) => l.accepted);
    t.deepEqual(accepted.map((e) => e.event_id).sort(), [...eventIds].sort());
    t.deepEqual(
      eventIds.map((id) => accepted.find((e) => e.event_id === id)!.event_type),
      ['invoice.detected', 'invoice.paid', 'invoice.reverted', 'invoice.paid'],
    );
    t.true(accepted.every((e) => e.mode === 'sandbox'));
    t.deepEqual(
      lines()
        .filter((l) => l.duplicate)
        .map((l) => l.duplicate),
      [duplicateOf],
    );
    t.false(
      lines().some((l) => l.rejected),
      'every signature verified',
    );

    // A second start against the same database provisions nothing more.
    app.child.kill('SIGTERM');
    await app.exited;
    const again = startApp('all', env);
    t.teardown(() => {
      if (again.child.exitCode === null) again.child.kill('SIGKILL');
    });
    await waitForUrl(again);
    // The first-start check runs before the start-up line: by now it has decided.
    t.notRegex(again.output(), /sandbox project was provisioned/);
    const projects = await runCliProcess(env, 'project', 'list', '--json');
    t.is(projects.json.length, 1, projects.output);
  },
);
