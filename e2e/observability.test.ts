import { execFile } from 'node:child_process';
import { CLI_ACTOR } from '@gw/kernel';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { createTestDatabase, startTestKernel, waitFor, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { plugins, chains } from '@gw/app-gateway';
import { payInvoice } from '@gw/plugin-invoices/testing';
import { projectWithPools } from '@gw/plugin-webhooks/testing';
import { ROOT } from '@gw/testing';

const run = promisify(execFile);
const PROMTOOL = process.env['PROMTOOL'] ?? '/usr/bin/promtool';
const ALERTS = join(ROOT, 'deploy/prometheus/alerts.yml');
const ALERT_TESTS = join(ROOT, 'deploy/prometheus/alerts.test.yml');
const DASHBOARD = join(ROOT, 'deploy/grafana/gateway.json');

let database: TestDatabase;
let worker: TestKernel;
let gateway: TestKernel;
let receiver: ReturnType<typeof createServer>;
let receiverUrl: string;

const config = {
  'plugins.rates.providers': ['fixed'],
  'plugins.rates.fixed': { ETH: '3000' },
  'plugins.webhooks.allowPrivateTargets': true,
  // One attempt: a failed delivery is dead-lettered at once.
  'plugins.webhooks.maxAttempts': 1,
  'plugins.webhooks.timeoutMs': 2000,
  'plugins.address-pool.targetFree': 5,
  'worker.http.port': 0,
};

test.before(async () => {
  database = await createTestDatabase();
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(503).end('down'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  gateway = await startTestKernel({ plugins, chains, role: 'gateway', database, config });
  worker = await startTestKernel({ plugins, chains, role: 'worker', database, config });
});
test.after.always(async () => {
  await worker?.close();
  await gateway?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await database?.drop();
});

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

/** Metric families a scrape declares (`# TYPE name kind`), with the series names of histograms. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, kind] = match;
    names.add(name!);
    if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every `gateway_*` metric name a PromQL expression uses. */
const metricNames = (expr: string) => [...expr.matchAll(/\bgateway_[a-z0-9_]+/g)].map((m) => m[0]);

/** Runs `promtool test rules` on the alert rules with `tests` (lines of a rules test file, from `tests:` on): it must pass. */
async function promtoolPasses(t: ExecutionContext, tests: readonly string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-alert-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(ALERTS, join(dir, 'alerts.yml'));
  writeFileSync(join(dir, 'scraped.test.yml'), ['rule_files: [alerts.yml]', 'evaluation_interval: 1m', 'tests:', ...tests, ''].join('\n'));
  const result = await run(PROMTOOL, ['test', 'rules', join(dir, 'scraped.test.yml')]);
  t.regex(result.stdout, /SUCCESS/);
}

test('promtool accepts the alert rules and their unit tests pass', async (t) => {
  const checked = await run(PROMTOOL, ['check', 'rules', ALERTS]);
  t.regex(checked.stdout, /SUCCESS: \d+ rules found/);
  const tested = await run(PROMTOOL, ['test', 'rules', ALERT_TESTS]);
  t.regex(tested.stdout, /SUCCESS/);
});

test('the worker serves /healthz, /readyz with readiness details and /metrics on its own port', async (t) => {
  t.truthy(worker.url);
  t.not(worker.url, gateway.url);
  t.deepEqual(await (await fetch(`${worker.url}/healthz`)).json(), { status: 'ok' });
  const ready = (await (await fetch(`${worker.url}/readyz`)).json()) as {
    status: string;
    details: { ready_for_payments: boolean; problems: { check: string }[] };
  };
  t.is(ready.status, 'ready');
  t.is(typeof ready.details.ready_for_payments, 'boolean');
  t.true(Array.isArray(ready.details.problems));
  // Same access rule as the gateway: a proxied request is refused without the token.
  t.is((await fetch(`${worker.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status, 401);
  // Deliveries are claimed from the outbox (ADR 0013): their backlog is the webhooks' own gauge; the
  // job-queue gauge covers the plugins' queues, the webhooks' redelivery among them.
  const metrics = await scrape(worker.url);
  t.regex(metrics, /gateway_job_queue_jobs\{queue="webhooks\.redeliver",state="ready"\}/);
  t.regex(metrics, /^gateway_webhook_backlog \d+$/m);
});

test('every metric the alerts and the dashboard use is exported by the processes', async (t) => {
  const names = new Set([...exported(await scrape(worker.url)), ...exported(await scrape(gateway.url))]);
  const alertExprs = [...readFileSync(ALERTS, 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]!);
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
  const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => target.expr));
  t.true(alertExprs.length >= 8);
  t.true(dashboardExprs.length >= 15);
  const used = new Set([...alertExprs, ...dashboardExprs].flatMap(metricNames));
  const missing = [...used].filter((name) => !names.has(name));
  t.deepEqual(missing, [], `used but not exported: ${missing.join(', ')}`);
  // And the promtool unit tests model only exported series.
  const modelled = new Set(metricNames(readFileSync(ALERT_TESTS, 'utf8')));
  t.deepEqual(
    [...modelled].filter((name) => !names.has(name)),
    [],
  );
});

test("deliveries that dead-letter show on the worker's metrics and fire the dead-letter alert", async (t) => {
  const before = await scrape(worker.url);
  const deadBefore = value(before, 'gateway_webhook_dead_letters');
  t.is(deadBefore, 0);
  const operator = await gateway.kernel.cradle.tenancyOperators.create('observability', CLI_ACTOR);
  const project = await projectWithPools(gateway, operator.id, ['eth'], 'testnet');
  const principal = (await gateway.kernel.cradle.tenancyProjects.principal(project.projectId))!;
  const { invoice } = await gateway.kernel.cradle.invoicesService.create(
    principal,
    { external_id: 'obs-1', amount_crypto: '0.01', coin: 'eth', callback_url: receiverUrl },
    CLI_ACTOR,
  );
  // A payment seen: pending → detected, announced by invoice.detected to the failing receiver.
  await payInvoice(gateway.kernel.cradle, project.projectId, invoice.id, {});
  const after = await waitFor(async () => {
    const text = await scrape(worker.url);
    // The gauge reads the committed row; the worker counts the attempt just after its commit.
    return (value(text, 'gateway_webhook_dead_letters') ?? 0) >= 1 && (value(text, 'gateway_webhook_delivery_attempts_total{outcome="dlq"}') ?? 0) >= 1 && text;
  });
  t.is(value(after, 'gateway_webhook_delivery_attempts_total{outcome="dlq"}'), 1);
  t.true((value(after, 'gateway_webhook_delivery_duration_seconds_count') ?? 0) >= 1);
  // The gauge is read from the database: the gateway process, which delivered nothing, agrees.
  t.is(value(await scrape(gateway.url), 'gateway_webhook_dead_letters'), value(after, 'gateway_webhook_dead_letters'));
  // The creation and the transition were counted by the process that committed them.
  const gatewayText = await scrape(gateway.url);
  t.is(value(gatewayText, 'gateway_invoice_transitions_total{from="new",to="pending"}'), 1);
  t.is(value(gatewayText, 'gateway_invoice_transitions_total{from="pending",to="detected"}'), 1);

  // The rule, evaluated by Prometheus's own engine over the two real scrapes: quiet while the
  // gauge held its first value, firing once it rose.
  const deadAfter = value(after, 'gateway_webhook_dead_letters')!;
  await promtoolPasses(t, [
    '  - interval: 1m',
    '    input_series:',
    `      - series: 'gateway_webhook_dead_letters{instance="worker"}'`,
    `        values: '${deadBefore}x20 ${deadAfter}x20'`,
    '    alert_rule_test:',
    '      - eval_time: 15m',
    '        alertname: GatewayWebhooksDeadLettering',
    '        exp_alerts: []',
    '      - eval_time: 25m',
    '        alertname: GatewayWebhooksDeadLettering',
    '        exp_alerts:',
    '          - exp_labels: { severity: page }',
    '            exp_annotations:',
    '              summary: Webhook events are being dead-lettered',
    `              description: '${deadAfter} event(s) dead-lettered in 15 minutes. Check the receivers (\`gateway webhook list --project <id> --status dlq\`), fix them, then resend.'`,
  ]);
});

test('watcher and rate gauges come from the shared database: every process reports the same, and the lag alert fires on them', async (t) => {
  const db = gateway.kernel.cradle.db;
  // A network 30 blocks behind whose last successful pass was 700 s ago, failing since (another
  // instance's work, as far as these processes know), and an old provider quote.
  await db('watchers_cursors').insert({
    chain: 'polygon',
    network: 'amoy',
    height: 100,
    head_height: 130,
    consecutive_failures: 4,
    updated_at: db.raw(`now() - interval '700 seconds'`),
  });
  await db('rates_quotes').insert({ asset: 'POL', source: 'coingecko', rate: '0.5', fetched_at: db.raw(`now() - interval '900 seconds'`) });
  const labels = '{chain="polygon",network="amoy"}';
  for (const url of [gateway.url, worker.url]) {
    const text = await scrape(url);
    t.is(value(text, `gateway_watcher_head_height${labels}`), 130);
    t.is(value(text, `gateway_watcher_cursor_height${labels}`), 100);
    t.is(value(text, `gateway_watcher_lag_blocks${labels}`), 30);
    t.is(value(text, `gateway_watcher_consecutive_failures${labels}`), 4);
    t.true(value(text, `gateway_watcher_lag_seconds${labels}`)! >= 700);
    t.true(value(text, 'gateway_rates_quote_age_seconds{asset="POL"}')! >= 900);
    t.is(value(text, 'gateway_rates_max_age_seconds'), 600);
  }
  // The scraped lag, fed to Prometheus's rule engine, fires the watcher alert.
  const lag = Math.floor(value(await scrape(worker.url), `gateway_watcher_lag_seconds${labels}`)!);
  await promtoolPasses(t, [
    '  - interval: 1m',
    '    input_series:',
    `      - series: 'gateway_watcher_lag_seconds${labels.slice(0, -1)},instance="worker"}'`,
    `        values: '${lag}+60x5'`,
    '    alert_rule_test:',
    '      - eval_time: 0m',
    '        alertname: GatewayWatcherFailing',
    '        exp_alerts:',
    '          - exp_labels: { severity: page, chain: polygon, network: amoy }',
    '            exp_annotations:',
    `              summary: 'Watcher polygon/amoy has not completed a pass for ${Math.floor(lag / 60)}m ${lag % 60}s'`,
    '              description: Payments on this network are not seen. gateway_watcher_consecutive_failures and the worker log name the provider error.',
  ]);
});
