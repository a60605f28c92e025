import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import test from 'ava';
import { toBaseUnits } from '@gw/kernel';
import { createTestDatabase, spawnGroup, waitFor } from '@gw/kernel/testing';
import { Anvil, createInvoiceOncePoolFills, evmAccountWallet, Receiver, ROOT, runCliProcess, startApp, waitForPaidInvoice, waitForUrl } from '@gw/testing';

/** The `<!-- config -->` JSON blocks of docs/getting-started.md, in order. */
function docConfigs(): Record<string, any>[] {
  const text = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');
  return [...text.matchAll(/<!-- config -->\n```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!));
}

/**
 * docs/getting-started.md, "From `pnpm start` to a paid testnet invoice", step by step with the
 * real apps: anvil plays Sepolia (its chain id), the config is the document's own examples with
 * the provider URL pointed at anvil, and every command is the document's.
 */
test('getting started: from start to a paid testnet invoice on a local Sepolia', async (t) => {
  const anvil = await Anvil.start(11155111);
  t.teardown(() => anvil.stop());
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const receiver = await Receiver.start();
  t.teardown(() => receiver.close());
  const received = () => receiver.requests.map((r) => ({ type: String(r.headers['x-service-event-type']), body: JSON.parse(r.body) }));

  // Step 1: the document's provider example (pointed at anvil) and its fixed-rate example.
  const [providers, fixedRates] = docConfigs();
  t.truthy(providers?.plugins?.watchers?.chains?.eth?.sepolia, 'the walkthrough configures eth.sepolia');
  providers!.plugins.watchers.chains.eth.sepolia.providers[0].url = anvil.url;
  providers!.plugins.watchers.scanIntervalSeconds = 1;
  const config = {
    ...providers,
    plugins: {
      ...providers!.plugins,
      rates: fixedRates!.plugins.rates,
      // The test's webhook receiver is on loopback.
      webhooks: { allowPrivateTargets: true },
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'gw-getting-started-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify(config));
  // GW_MASTER_KEY rather than GW_ENV=development: development would write .data/master.key into the checkout.
  const env = { DATABASE_URL: database.url, GW_CONFIG: join(dir, 'gateway.config.json'), GW_MASTER_KEY: '1f'.repeat(32), LOG_LEVEL: 'warn' };
  const app = startApp('all', { ...env, PORT: '0' });
  t.teardown(() => {
    if (app.child.exitCode === null) app.child.kill('SIGKILL');
  });
  const url = await waitForUrl(app);

  const doctor = await runCliProcess(env, 'doctor', '--json');
  t.is(doctor.code, 1, doctor.output);
  const check = (json: any, name: string) => json.checks.find((c: { check: string }) => c.check === name);
  t.like(check(doctor.json, 'wallets.verified'), { ok: false, severity: 'error' });
  t.like(check(doctor.json, 'watchers.providers'), { ok: true });
  t.like(check(doctor.json, 'rates.source'), { ok: true });

  // Step 2: a testnet project.
  const created = await runCliProcess(env, 'project', 'create', '--kind', 'testnet', '--name', 'demo', '--json');
  t.is(created.code, 0, created.output);
  const projectId: string = created.json.project.id;
  const secret: string = created.json.credentials.api_secret;

  // Steps 3 and 4: the account key, previewed, registered, its challenge signed by index 0, verified.
  const wallet = evmAccountWallet(7);
  const preview = await runCliProcess(env, 'wallet', 'preview', '--chain', 'eth', '--xpub', wallet.xpub, '--network', 'testnet', '--json');
  t.is(preview.code, 0, preview.output);
  t.is(preview.json.addresses[0].address, wallet.address0);
  const registered = await runCliProcess(env, 'wallet', 'register', '--project', projectId, '--chain', 'eth', '--xpub', wallet.xpub, '--json');
  t.is(registered.code, 0, registered.output);
  t.is(registered.json.challenge.sign_with_address, wallet.address0);
  const signature = await wallet.sign(registered.json.challenge.message);
  t.is((await runCliProcess(env, 'wallet', 'verify', '--project', projectId, '--chain', 'eth', '--signature', signature, '--json')).code, 0);
  const hooks = `${receiver.url}/hooks`;
  t.is((await runCliProcess(env, 'webhook', 'set', '--project', projectId, '--url', hooks, '--json')).code, 0);
  const ready = await runCliProcess(env, 'doctor', '--json');
  t.is(ready.code, 0, ready.output);
  t.true(ready.json.ready);

  // Step 5: an invoice, paid from another account, confirmed.
  // The pool fills just after verification; until then creation answers 503 pool_exhausted-like errors.
  const invoice = await createInvoiceOncePoolFills(url, { projectId, secret }, { external_id: 'order-1', coin: 'eth', amount_crypto: '0.01' }, 30_000);
  const [payer] = await anvil.accounts();
  await anvil.sendEth(payer!, invoice.address, toBaseUnits(invoice.amount_crypto, 18));
  await anvil.mine(invoice.confirmation_threshold);
  const paid = await waitForPaidInvoice(url, { projectId, secret }, invoice.id, 60_000);
  t.is(paid.status, 'paid');
  const shown = await runCliProcess(env, 'invoice', 'show', '--project', projectId, '--id', invoice.id, '--json');
  t.is(shown.json.invoice.status, 'paid');
  await waitFor(
    async () => received().some((r) => r.type === 'invoice.paid' && r.body.data.invoice_id === invoice.id),
    30_000,
    'invoice.paid at the webhook URL',
  );
  t.pass();

  // docs/backup.md: the accounting export, on stdout, with USD at payment from the fixed rate.
  const exported = await runCliProcess(env, 'invoice', 'export', '--project', projectId, '--from', '2000-01-01', '--to', '2999-12-31', '--format', 'csv');
  t.is(exported.code, 0, exported.output);
  const lines = exported.output.split('\r\n');
  t.true(lines[0]!.startsWith('invoice_id,external_id,status,'));
  const line = lines.find((l) => l.startsWith(`${invoice.id},`))!;
  t.truthy(line, exported.output);
  t.regex(line, /,paid,testnet,eth,eth,/);
  t.true(line.includes(',0.01,3000,fixed,30.00000000,'), line);

  app.child.kill('SIGTERM');
  t.is(await app.exited, 0, app.output());
});

const GUIDE = () => readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');

/** Every ```bash block of docs/getting-started.md, in order. */
function guideBashBlocks(): { code: string }[] {
  return [...GUIDE().matchAll(/^```bash\n([\s\S]*?)\n```$/gm)].map((m) => ({ code: m[1]! }));
}

/**
 * What a newcomer's shell has: PATH (without the suite's node_modules/.bin, so `node` is the
 * machine's) and HOME (pnpm's store), nothing of the suite (no DATABASE_URL, GW_*, LOG_LEVEL).
 */
function newcomerEnv(): Record<string, string> {
  const path = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((p) => p !== '' && !p.includes('node_modules'))
    .join(delimiter);
  return { PATH: path, HOME: process.env['HOME'] ?? '/root' };
}

/** Runs `script` as printed with `bash -c` in `cwd`; resolves with its exit code and output. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const ulids = (text: string) => text.replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, '<id>');

/**
 * Issue 33 finding 6: every CLI command of the guide failed as printed (`config_error: missing key
 * security.masterKey`), and the walkthrough above could not see it, since it sets the variables
 * itself. Here each ```bash block runs exactly as printed, with `bash -c` in a scratch copy of the
 * checkout and only PATH and HOME, from `start` (install, build, embedded PostgreSQL, port 8080) to
 * a verified wallet; placeholders (`<account xpub>`, `<signature>`, `<invoice id>`) are the only
 * text filled in, and printed outputs are compared with what the commands print.
 */
test('getting started: the commands of the guide work as printed, in a shell with only PATH and HOME', async (t) => {
  t.timeout(900_000);
  const scratch = mkdtempSync(join(tmpdir(), 'gw-guide-'));
  // Run as root, the embedded PostgreSQL runs as the `postgres` user, who must reach .data/ inside.
  chmodSync(scratch, 0o755);
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  // The checkout as it is (tracked and new files), without node_modules, builds or .data.
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    cpSync(join(ROOT, file), join(scratch, file));
  }
  const env = newcomerEnv();
  const blocks = guideBashBlocks();
  const handled = new Set<number>();
  const block = (pattern: RegExp) => {
    const index = blocks.findIndex((b, i) => !handled.has(i) && pattern.test(b.code));
    t.true(index >= 0, `the guide has a block matching ${pattern}`);
    handled.add(index);
    return blocks[index]!;
  };
  const run = async (code: string, fill: Record<string, string> = {}) => {
    let script = code;
    for (const [placeholder, value] of Object.entries(fill)) script = script.replaceAll(placeholder, value);
    t.notRegex(script, /<[a-z][a-z ]*>/, `a placeholder left unfilled in:\n${script}`);
    return bash(script, scratch, env);
  };

  // The two commands: the first starts the local trial (the second is the test suite itself).
  const twoCommands = block(/^GW_ENV=development npx -y pnpm@10\.34\.9 start .*\nnpx -y pnpm@10\.34\.9 test/);
  let gateway = spawnGroup('bash', ['-c', twoCommands.code.split('\n')[0]!], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (g: typeof gateway) => {
    g.child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    g.child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  };
  collect(gateway);
  t.teardown(() => gateway.stop(10_000));
  const started = () =>
    waitFor(
      async () =>
        /listening on http:\/\/127\.0\.0\.1:8080\n/.test(output) ? true : gateway.child.exitCode !== null ? Promise.reject(new Error(output)) : undefined,
      600_000,
      `the start line:\n${output}`,
    );
  await started();

  // The start message, as the guide prints it; `/` leads to the dashboard.
  const printed = /It prints:\n\n {2}```\n([\s\S]*?)\n {2}```/
    .exec(GUIDE())![1]!
    .split('\n')
    .map((l) => l.slice(2));
  const lines = output.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Gateway (HTTP + worker) listening on'));
  t.deepEqual(lines.slice(at, at + printed.length), printed);
  const root = await fetch('http://127.0.0.1:8080/', { redirect: 'manual' });
  t.is(root.headers.get('location'), '/dashboard');

  // Create a project: the JSON is printed and kept in demo.json.
  const created = await run(block(/project create --kind testnet --name demo --json \| tee demo\.json/).code);
  t.is(created.code, 0, created.stdout + created.stderr);
  // `| tee` hides the CLI's exit code: an error is the JSON it prints.
  t.is(JSON.parse(created.stdout).error_code, undefined, created.stdout);
  const demo = JSON.parse(readFileSync(join(scratch, 'demo.json'), 'utf8'));
  t.like(demo.project, { name: 'demo', kind: 'testnet' });
  t.like(JSON.parse(created.stdout), { project: { id: demo.project.id } });

  // A signed request with bash and openssl, then with Node.
  const signed = await run(block(/openssl dgst -sha256 -hmac/).code);
  t.is(signed.code, 0, signed.stdout + signed.stderr);
  t.like(JSON.parse(signed.stdout), { id: demo.project.id, name: 'demo', kind: 'testnet' });
  const node = /```js\n([\s\S]*?)\n```/.exec(GUIDE())![1]!;
  t.regex(node, /^\/\/ sign\.mjs — PROJECT_ID=\.\.\. API_SECRET=\.\.\. node sign\.mjs/);
  writeFileSync(join(scratch, 'sign.mjs'), node);
  const fromNode = await run(`PROJECT_ID=${demo.project.id} API_SECRET=${demo.credentials.api_secret} node sign.mjs`);
  t.is(fromNode.code, 0, fromNode.stderr);
  t.regex(fromNode.stdout, /status: 200/);

  // Step 1: the config as the guide says (the provider example, its rates replaced by the fixed
  // ones), a restart, and doctor printing what the guide prints.
  const [providers, fixedRates] = docConfigs();
  writeFileSync(
    join(scratch, 'gateway.config.json'),
    JSON.stringify({ ...providers, plugins: { ...providers!.plugins, rates: fixedRates!.plugins.rates } }, null, 2),
  );
  await gateway.stop(30_000);
  const restart = block(/^GW_ENV=development npx -y pnpm@10\.34\.9 start$/);
  output = '';
  gateway = spawnGroup('bash', ['-c', restart.code], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  collect(gateway);
  await started();
  const doctorBlock = block(/^GW_ENV=development \.\/gateway doctor$/);
  // The guide shows doctor after the gateway's first rates refresh (at start).
  const doctor = await waitFor(
    async () => {
      const ran = await run(doctorBlock.code);
      return /rates\.source: fresh quotes/.test(ran.stdout) ? ran : undefined;
    },
    120_000,
    'the first rates refresh',
  );
  t.is(doctor.code, 1, doctor.stdout + doctor.stderr);
  const shownDoctor =
    /With the fixed rates and the `demo` project made above, once the gateway's first rates refresh ran\n\(right after start\):\n\n```\n([\s\S]*?)\n```/.exec(
      GUIDE(),
    )![1]!;
  t.is(ulids(doctor.stdout.trimEnd()), ulids(shownDoctor), 'doctor prints what the guide shows');

  // Steps 3 and 4: an account key registered, its challenge signed by index 0, verified.
  const wallet = evmAccountWallet(11);
  const registered = await run(block(/gateway wallet register/).code, { '<account xpub>': wallet.xpub });
  t.is(registered.code, 0, registered.stdout + registered.stderr);
  const challenge = JSON.parse(registered.stdout).challenge;
  t.is(challenge.sign_with_address, wallet.address0);
  const verified = await run(block(/gateway wallet verify/).code, { '<signature>': await wallet.sign(challenge.message) });
  t.is(verified.code, 0, verified.stdout + verified.stderr);
  t.regex(verified.stdout, /Nothing blocks real payments/);

  // Step 5: an invoice (created by a signed request as in "Make a signed request"), shown.
  const invoice = await createInvoiceOncePoolFills(
    'http://127.0.0.1:8080',
    { projectId: demo.project.id, secret: demo.credentials.api_secret },
    { external_id: 'order-1', coin: 'eth', amount_crypto: '0.01' },
    60_000,
  );
  t.truthy(block(/# sign METHOD=POST TARGET=\/api\/v1\/invoices/), 'the invoice request is a sketch over the signing block above');
  const shown = await run(block(/gateway invoice show/).code, { '<invoice id>': invoice.id });
  t.is(shown.code, 0, shown.stdout + shown.stderr);
  t.is(JSON.parse(shown.stdout).invoice.id, invoice.id);

  // Not run here: production processes against a database elsewhere (deployment.md's tests).
  t.truthy(block(/^export DATABASE_URL=postgres:\/\/user:password@db\.example/));
  t.deepEqual(
    blocks.map((_, i) => i).filter((i) => !handled.has(i)),
    [],
    'every bash block of the guide is run or named here',
  );
});
