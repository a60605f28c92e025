/**
 * One side of the invoice-create benchmark, in its own process so the load generator does not
 * share its event loop: `baseline` (a minimal Koa route: HMAC verify + one idempotent INSERT) or
 * `gateway` (the real kernel with the composition's plugins). Prints one JSON line
 * `{url, projects: [{projectId, secret}], coin}` on stdout when ready; stops on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import knexFactory from 'knex';
import { CLI_ACTOR, parseTimestamp, requestSigningString, SIGNATURE_WINDOW_SECONDS, signatureMatchesAny } from '@gw/kernel';
import { createBenchKernel } from '../bench-kernel.js';
// The wallets tests' published-mnemonic Cardano key and its real CIP-8 signer.
import { adaWallet } from '@gw/testing';

const [mode, databaseUrl, poolSizeArg, projectsArg] = process.argv.slice(2);
const projectCount = Number(projectsArg ?? 3);
if ((mode !== 'baseline' && mode !== 'gateway') || !databaseUrl) {
  console.error('usage: server.ts baseline|gateway <database-url> [pool-size] [projects]');
  process.exit(2);
}
// The pool plugin keeps at most 10,000 free addresses per wallet.
const poolSize = Math.min(10_000, Number(poolSizeArg ?? 10_000));

if (mode === 'baseline') {
  const db = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } });
  await db.raw(`create table if not exists baseline_invoices (
    id bigserial primary key, project_id text not null, external_id text not null, body jsonb not null,
    created_at timestamptz not null default now(), unique (project_id, external_id))`);
  const secret = 'ab'.repeat(32);
  const projects = Array.from({ length: projectCount }, (_, i) => ({ projectId: `01BASE${String(i).padStart(20, '0')}`, secret }));
  const projectIds = new Set(projects.map((p) => p.projectId));
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method !== 'POST' || ctx.path !== '/api/v1/invoices') {
      ctx.status = 404;
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const timestamp = parseTimestamp(ctx.get('X-Timestamp'));
    const signing = requestSigningString('POST', ctx.originalUrl, ctx.get('X-Timestamp'), raw);
    if (
      !projectIds.has(ctx.get('X-Project-Id')) ||
      timestamp === undefined ||
      Math.abs(Date.now() / 1000 - timestamp) > SIGNATURE_WINDOW_SECONDS ||
      !signatureMatchesAny(ctx.get('X-Signature'), signing, [secret])
    ) {
      ctx.status = 401;
      ctx.body = { error_code: 'signature_invalid' };
      return;
    }
    const body = JSON.parse(raw) as { external_id: string };
    const inserted = await db.raw(
      `insert into baseline_invoices (project_id, external_id, body) values (?, ?, ?) on conflict (project_id, external_id) do nothing returning id`,
      [ctx.get('X-Project-Id'), body.external_id, raw],
    );
    ctx.status = inserted.rows.length > 0 ? 201 : 200;
    ctx.body = { id: String(inserted.rows[0]?.id ?? ''), external_id: body.external_id };
  });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, projects, coin: 'ada' }));
  process.on('SIGTERM', () => {
    server.close();
    void db.destroy().then(() => process.exit(0));
  });
} else {
  const overridesFor = (targetFree: number) => ({
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': { ADA: '0.75' },
    'plugins.invoices.createRateLimitPerMinute': 1_000_000,
    'plugins.address-pool.targetFree': targetFree,
    'plugins.address-pool.replenishBatchMax': 10_000,
    ...(process.env['BENCH_BATCH_CONCURRENCY'] ? { 'plugins.invoices.createBatchConcurrency': Number(process.env['BENCH_BATCH_CONCURRENCY']) } : {}),
    ...(process.env['BENCH_BATCH_MIN_WHILE_BUSY'] ? { 'plugins.invoices.createBatchMinWhileBusy': Number(process.env['BENCH_BATCH_MIN_WHILE_BUSY']) } : {}),
  });
  // Set-up: projects with a verified Cardano wallet each and the whole pool derived in advance (the
  // benchmark measures invoice creation, not derivation).
  const setup = createBenchKernel(databaseUrl, { role: 'cli', overrides: overridesFor(poolSize) });
  await setup.start();
  const { tenancyOperators, tenancyProjects, walletsWallets, addressPoolReplenisher } = setup.cradle;
  const operator = await tenancyOperators.create(`bench-${Date.now()}`, CLI_ACTOR);
  const projects: { projectId: string; secret: string }[] = [];
  for (let i = 0; i < projectCount; i += 1) {
    const { project, credentials } = await tenancyProjects.create({ name: `bench-${i}`, kind: 'production', operator: operator.id }, CLI_ACTOR);
    const { challenge } = await walletsWallets.register({ projectId: project.id, chain: 'ada', xpub: adaWallet.xpub }, CLI_ACTOR);
    await walletsWallets.verify({ projectId: project.id, chain: 'ada', signature: await adaWallet.sign(challenge.message) }, CLI_ACTOR);
    await addressPoolReplenisher.replenish({ projectId: project.id, chain: 'ada' });
    projects.push({ projectId: project.id, secret: credentials.api_secret });
  }
  await setup.stop();
  // Serving: the deployment's default pool settings. Access logs at info would measure the terminal.
  const kernel = createBenchKernel(databaseUrl, { role: 'gateway', overrides: overridesFor(20) });
  await kernel.start();
  // Diagnostics: BENCH_COUNT_QUERIES=1 prints, on stop, how often each statement shape ran.
  const statements = new Map<string, number>();
  if (process.env['BENCH_COUNT_QUERIES']) {
    kernel.cradle.db.on('query', (query: { sql: string }) => {
      const shape = query.sql.replace(/\s+/g, ' ').slice(0, 90);
      statements.set(shape, (statements.get(shape) ?? 0) + 1);
    });
  }
  console.log(JSON.stringify({ url: kernel.url, projects, coin: 'ada' }));
  process.on('SIGTERM', () => {
    for (const [shape, count] of [...statements].sort((a, b) => b[1] - a[1])) console.error(String(count).padStart(8), shape);
    void kernel.stop().then(() => process.exit(0));
  });
}
