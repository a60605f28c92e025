import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { toBaseUnits } from '@gw/kernel';
import { createTestDatabase, signedFetch, waitFor } from '@gw/kernel/testing';
import { Anvil } from '../plugins/watchers/test/anvil.js';
import { evmAccountWallet } from '../plugins/wallets/test/signers.js';
import { ROOT, runCliProcess, startApp, waitForUrl } from './processes.js';

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
  const received: { type: string; body: any }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ type: String(req.headers['x-service-event-type']), body: JSON.parse(body) });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

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
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  t.is((await runCliProcess(env, 'webhook', 'set', '--project', projectId, '--url', hooks, '--json')).code, 0);
  const ready = await runCliProcess(env, 'doctor', '--json');
  t.is(ready.code, 0, ready.output);
  t.true(ready.json.ready);

  // Step 5: an invoice, paid from another account, confirmed.
  const invoice = await waitFor(async () => {
    const response = await signedFetch(url, '/api/v1/invoices', { projectId, secret, method: 'POST', body: { external_id: 'order-1', coin: 'eth', amount_crypto: '0.01' } });
    // The pool fills just after verification; until then creation answers 503 pool_exhausted-like errors.
    return response.status === 201 ? response.body : undefined;
  }, 30_000, 'invoice creation');
  const [payer] = await anvil.accounts();
  await anvil.sendEth(payer!, invoice.address, toBaseUnits(invoice.amount_crypto, 18));
  await anvil.mine(invoice.confirmation_threshold);
  const paid = await waitFor(async () => {
    const response = await signedFetch(url, `/api/v1/invoices/${invoice.id}`, { projectId, secret, method: 'GET' });
    return response.body.status === 'paid' ? response.body : undefined;
  }, 60_000, 'the invoice to be paid');
  t.is(paid.status, 'paid');
  const shown = await runCliProcess(env, 'invoice', 'show', '--project', projectId, '--id', invoice.id, '--json');
  t.is(shown.json.invoice.status, 'paid');
  await waitFor(async () => received.some((r) => r.type === 'invoice.paid' && r.body.data.invoice_id === invoice.id), 30_000, 'invoice.paid at the webhook URL');
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
