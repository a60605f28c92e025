/**
 * Benchmark: server time of the dashboard's pages with 100,000 invoices in one project (issue 20:
 * "no page over 200 ms server time"). Fills a fresh database set-based (clones of one real invoice
 * spread over 60 days, a third of them paid; a webhook event per invoice, some dead-lettered; an
 * audit row per invoice), signs a user in through the session service, then requests each page over
 * loopback HTTP and reports the median and worst of N requests after a warm-up. The time measured
 * is request to last byte on 127.0.0.1, so it bounds the server time from above.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/dashboard/run.ts [--invoices 100000] [--requests 15]
 * PostgreSQL: DATABASE_URL (an admin URL; a fresh database, dropped afterwards) or an embedded server.
 */
import { sql, sqlIdentifier, sqlJoin, sqlQuery, type Sql } from '@gw/kernel';
import { CLI_ACTOR } from '@gw/kernel';
import { benchPostgres } from '../bench-database.js';
import { createBenchKernel, ethProjectWithSeedInvoice, FIXED_ETH_RATE } from '../bench-kernel.js';
import { benchOptions } from '../bench-options.js';

const { invoices: total, requests } = benchOptions({ invoices: 100_000, requests: 15 });
const postgres = await benchPostgres();

await postgres.withDatabase(async (url) => {
  const kernel = createBenchKernel(url, { role: 'gateway', overrides: FIXED_ETH_RATE });
  await kernel.start();
  try {
    const { tenancyUsers, invoicesService, dashboardSessions, db } = kernel.cradle;
    const { project, seed } = await ethProjectWithSeedInvoice(kernel, 'dashboard-bench');

    const started = Date.now();
    const columns = (
      await db.raw<{ rows: { column_name: string }[] }>(
        `select column_name from information_schema.columns where table_name = 'invoices_invoices' order by ordinal_position`,
      )
    ).rows.map((r) => r.column_name);
    // Ids stay time-ordered ULIDs of their creation time: 10 characters of time, then the counter.
    const createdAt = sql`now() - make_interval(secs => (${total} - g) * (60 * 86400.0 / ${total}))`;
    const replaced: Record<string, Sql> = {
      id: sql`substr(i.id, 1, 2) || lpad(g::text, 24, '0')`,
      external_id: sql`'bulk-' || g`,
      payment_token: sql`'f' || lpad(to_hex(g), 15, '0')`,
      checkout_token: sql`'bulk-checkout-' || g`,
      created_at: createdAt,
      status: sql`case when g % 3 = 0 then 'paid' when g % 3 = 1 then 'expired' else 'pending' end`,
      paid_at: sql`case when g % 3 = 0 then ${createdAt} + interval '5 minutes' end`,
      paid_usd_rate: sql`case when g % 3 = 0 then 3000 end`,
      paid_rate_source: sql`case when g % 3 = 0 then 'fixed' end`,
    };
    await sqlQuery(
      db,
      sql`insert into invoices_invoices (${sqlJoin(columns.map((c) => sqlIdentifier(c)))})
          select ${sqlJoin(columns.map((c) => replaced[c] ?? sqlIdentifier('i', c)))}
            from invoices_invoices i, generate_series(1, ${total}::int) g where i.id = ${seed.id}`,
    );
    await db.raw(
      `insert into webhooks_events (id, project_id, mode, invoice_id, event_type, body, target_url, status, attempts, last_http_status, delivered_at, created_at, updated_at)
       select '03' || substr(i.id, 3), i.project_id, 'testnet', i.id, 'invoice.paid', '{"event_type":"invoice.paid"}', 'https://partner.example/hook',
              case when i.external_id like '%7' then 'dlq' else 'delivered' end, 1, 200, i.created_at, i.created_at, i.created_at
         from invoices_invoices i where i.project_id = ? and i.id <> ?`,
      [project.id, seed.id],
    );
    await db.raw(
      `insert into kernel_audit_log (id, actor, channel, action, project_id, target, request_id, created_at)
       select '04' || substr(i.id, 3), 'api_key:bench', 'rest', 'invoice.create', i.project_id, 'invoice:' || i.id, null, i.created_at
         from invoices_invoices i where i.project_id = ? and i.id <> ?`,
      [project.id, seed.id],
    );
    await db.raw('analyze invoices_invoices; analyze invoices_transactions; analyze webhooks_events; analyze kernel_audit_log');
    console.log(`filled ${total} invoices, ${total} webhook events and ${total} audit rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const user = await tenancyUsers.invite({ email: 'bench@example.test', operator: project.operator_id, role: 'admin' }, CLI_ACTOR);
    const session = await dashboardSessions.signIn(await dashboardSessions.begin(false), user.id, false);
    const cookie = `gw_dashboard=${session.token}`;
    const some = (await invoicesService.list(project.id, { limit: 1, status: 'paid' })).items[0]!;
    const event = (await kernel.cradle.webhooksEventLog.list(project.id, { limit: 1 })).items[0]!;
    const base = `http://127.0.0.1:${(kernel.server!.address() as { port: number }).port}`;
    const p = `/dashboard/projects/${project.id}`;
    const pages: [string, string][] = [
      ['Overview', `${p}/overview`],
      ['Invoices (first page)', `${p}/invoices`],
      ['Invoices, status paid', `${p}/invoices?status=paid`],
      ['Invoices, external id', `${p}/invoices?external_id=bulk-50000`],
      ['Invoices, amount', `${p}/invoices?amount=${some.amount_crypto}`],
      [
        'Invoices, date range',
        `${p}/invoices?date_from=${new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10)}&date_to=${new Date(Date.now() - 19 * 86_400_000).toISOString().slice(0, 10)}`,
      ],
      ['Invoice detail', `${p}/invoices/${some.id}`],
      ['Webhook log', `${p}/webhooks`],
      ['Webhook log, dead-lettered', `${p}/webhooks?status=dlq`],
      ['Webhook event', `${p}/webhooks/${event.id}`],
      ['Orphan payments', `${p}/orphans`],
      ['Wallets and pools', `${p}/wallets`],
      ['Invoice policy', `${p}/policy`],
      ['Audit log', `/dashboard/audit`],
      ['Audit log, channel rest', `/dashboard/audit?channel=rest`],
      ['Audit log, actor', `/dashboard/audit?actor=operator-cli`],
    ];
    // The overview's parts, each timed alone (the page runs them concurrently).
    const parts: [string, () => Promise<unknown>][] = [
      ['invoice activity', () => kernel.cradle.invoicesActivity.activity(project.id)],
      ['webhook health', () => kernel.cradle.webhooksHealth.health(project.id)],
      ['watcher status', () => kernel.cradle.watchersStatus.status()],
      ['pool status', () => kernel.cradle.addressPoolStatus.status({ projectId: project.id })],
      ['rates', () => kernel.cradle.ratesService.cached()],
    ];
    for (const [name, run] of parts) {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        await run();
        if (i >= 2) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`overview part ${name}: median ${times[2]!.toFixed(1)} ms`);
    }
    console.log(`\n| Page | median ms | worst ms |\n|---|---:|---:|`);
    for (const [name, path] of pages) {
      const times: number[] = [];
      for (let i = 0; i < requests + 2; i++) {
        const t0 = performance.now();
        const response = await fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' });
        await response.text();
        if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
        if (i >= 2) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`| ${name} | ${times[Math.floor(times.length / 2)]!.toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} |`);
    }
  } finally {
    await kernel.stop();
  }
});
await postgres.stop();
