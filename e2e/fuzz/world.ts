/**
 * The gateway the fuzz suite attacks: every plugin and chain of this build in one kernel (role
 * `gateway`: no workers, so nothing but the requests writes to the database), two operators A and
 * B with a sandbox and a testnet project each (invoices and webhook events in every one), a
 * disposable sandbox project of A for reset/delete, a PAT of A for the MCP endpoint and an OAuth
 * client. Requests are signed as A; B's ids are the foreign ones no request of A may reach.
 */
import { chains, plugins } from '@gw/app-gateway';
import { CLI_ACTOR, requestTarget, signRequest, sql, sqlIdentifier, sqlJoin, sqlQuery } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { FIXED_RATES, projectWithPools } from '@gw/testing';
import { MailSink } from '@gw/plugin-oauth/testing';

export { signRequest, requestTarget };

export interface Credentials {
  readonly projectId: string;
  readonly secret: string;
}

export interface Side {
  readonly operatorId: string;
  readonly sandbox: Credentials;
  readonly testnet: Credentials;
  readonly sandboxInvoices: string[];
  readonly testnetInvoices: string[];
  readonly sandboxEvents: string[];
  readonly testnetEvents: string[];
}

export interface McpTool {
  readonly name: string;
  readonly inputSchema: Record<string, any>;
}

export interface FuzzWorld {
  readonly gw: TestKernel;
  readonly mail: MailSink;
  readonly document: any;
  readonly a: Side;
  readonly b: Side;
  /** A's sandbox project that reset/delete may hit; replaced after a delete succeeds. */
  disposable: Credentials;
  readonly pat: string;
  readonly tools: readonly McpTool[];
  readonly oauthClientId: string;
  readonly oauthRedirectUri: string;
  /** Every id of B (projects, invoices, events): none may appear in an answer to A. */
  readonly foreignIds: ReadonlySet<string>;
  readonly tables: readonly string[];
  close(): Promise<void>;
}

export const MCP_PATH = '/api/mcp/transport';

/** Tables a refused request may legitimately write to; each with the reason. */
export const REFUSAL_WRITES: Readonly<Record<string, string>> = {
  // Rate limits count attempts, refused ones included (spec 8: a limit bounds what a caller may
  // try, so a caller sending bad requests is limited too); the counters live in PostgreSQL.
  'public.kernel_rate_limit_counters': 'rate-limit counters count refused attempts too',
  // A signed write (and an event-stream read) is claimed once authentication passes, before
  // validation and the handler, and its answer recorded, a refusal's too (docs/decisions.md
  // "Signing forms and repeated signed requests"): an identical copy answers alike.
  'public.tenancy_signed_answers': 'answers of signed requests are recorded, refusals included',
  // A client_id naming a metadata document that cannot be fetched is refused, and the failure is
  // cached for a minute so that hostile client ids cost one fetch, not one per request
  // (docs/decisions.md "OAuth abuse cases", client metadata document fetches).
  'public.oauth_client_document_failures': 'failed client metadata document fetches are cached',
  // A refund is valued at today's quote (its rate rule, its approval and claim-proof thresholds)
  // before the cap can refuse it; the rates plugin caches the quote it fetched (issue 37).
  'public.rates_quotes': 'a quote fetched to value a refund is cached, whatever the answer',
};

export async function startFuzzWorld(): Promise<FuzzWorld> {
  const mail = await MailSink.start();
  const gw = await startTestKernel({
    plugins,
    chains,
    role: 'gateway',
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.address-pool.targetFree': 3,
      'plugins.webhooks.allowPrivateTargets': true,
      'plugins.sandbox.simulateRateLimitPerMinute': 1_000_000,
      'plugins.sandbox.writeRateLimitPerMinute': 1_000_000,
      'plugins.sandbox.clockAdvanceRateLimitPerMinute': 1_000_000,
      'plugins.invoices.createRateLimitPerMinute': 1_000_000,
      'plugins.webhooks.resendRateLimitPerMinute': 100_000,
      'plugins.mcp.toolCallsPerMinute': 100_000,
      'plugins.oauth.registrationsPerHourPerIp': 100_000,
      'plugins.oauth.authorizePerMinutePerIp': 100_000,
      'plugins.oauth.smtp.url': mail.url,
      'plugins.oauth.smtp.from': 'Gateway <gw@example.test>',
    },
  }).catch(async (error: unknown) => {
    await mail.close();
    throw error;
  });
  try {
    const a = await side(gw, 'a', 0);
    const b = await side(gw, 'b', 1);
    const disposable = await provisionSandbox(gw, a.operatorId);
    const { tenancyPats } = gw.kernel.cradle;
    const scopes = ['projects:read', 'invoices:read', 'transactions:read', 'webhooks:read', 'invoices:write', 'webhooks:manage', 'sandbox:simulate'];
    const pat = (await tenancyPats.create({ scopes, operator: a.operatorId, name: 'fuzz' }, CLI_ACTOR)).token;
    const tools = await listTools(gw.url, pat);
    const oauthRedirectUri = 'http://127.0.0.1:9/callback';
    const registered = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'fuzz',
        redirect_uris: [oauthRedirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    });
    if (registered.status !== 201) throw new Error(`OAuth registration answered ${registered.status}: ${await registered.text()}`);
    const oauthClientId = ((await registered.json()) as { client_id: string }).client_id;
    const document = await (await fetch(`${gw.url}/api/v1/openapi.json`)).json();
    const foreignIds = new Set<string>(
      [b.operatorId, b.sandbox.projectId, b.testnet.projectId, ...b.sandboxInvoices, ...b.testnetInvoices, ...b.sandboxEvents, ...b.testnetEvents].filter(
        (id) => typeof id === 'string' && id.length > 0,
      ),
    );
    const tables = (
      (
        await gw.kernel.cradle.db.raw(
          `select table_schema || '.' || table_name as name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1`,
        )
      ).rows as { name: string }[]
    ).map((r) => r.name);
    return {
      gw,
      mail,
      document,
      a,
      b,
      disposable,
      pat,
      tools,
      oauthClientId,
      oauthRedirectUri,
      foreignIds,
      tables,
      async close() {
        await gw.close();
        await mail.close();
      },
    };
  } catch (error) {
    await gw.close().catch(() => undefined);
    await mail.close().catch(() => undefined);
    throw error;
  }
}

export async function provisionSandbox(gw: TestKernel, operatorId: string): Promise<Credentials> {
  const provisioned = await gw.kernel.cradle.sandboxProjects.provision(
    { name: `fuzz-${Math.random().toString(36).slice(2)}`, operator: operatorId },
    CLI_ACTOR,
  );
  await gw.kernel.cradle.tenancyProjects.setWebhookUrl(provisioned.project.id, 'http://127.0.0.1:9/hooks', CLI_ACTOR);
  return { projectId: provisioned.project.id, secret: provisioned.api_key.api_secret };
}

async function side(gw: TestKernel, label: string, evmAccount: number): Promise<Side> {
  const { tenancyOperators, tenancyProjects } = gw.kernel.cradle;
  const operatorId = (await tenancyOperators.create(`fuzz-${label}-${Math.random().toString(36).slice(2, 8)}`, CLI_ACTOR)).id;
  const sandbox = await provisionSandbox(gw, operatorId);
  const testnet = await projectWithPools(gw, operatorId, ['eth', 'btc'], 'testnet', { evmAccount });
  await tenancyProjects.setWebhookUrl(testnet.projectId, 'http://127.0.0.1:9/hooks', CLI_ACTOR);
  /** POSTs `body` to `path` as `creds`; anything but `status` stops the set-up. */
  const post = async (creds: Credentials, path: string, body: object, status: number) => {
    const answer = await signedFetch(gw.url, path, { ...creds, method: 'POST', body });
    if (answer.status !== status) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const sandboxInvoices: string[] = [];
  const testnetInvoices: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const created = await post(sandbox, '/api/v1/sandbox/invoices', { external_id: `fuzz-${label}-sb-${i}`, coin: 'eth', amount_crypto: '0.05' }, 201);
    sandboxInvoices.push(created.id);
    await post(sandbox, `/api/v1/sandbox/invoices/${created.id}/simulate-detect`, {}, 200);
    const real = await post(testnet, '/api/v1/invoices', { external_id: `fuzz-${label}-tn-${i}`, coin: 'eth', amount_crypto: '0.05' }, 201);
    testnetInvoices.push(real.id);
  }
  const events = async (creds: Credentials, prefix: string) => {
    const listed = await signedFetch(gw.url, `/api/v1${prefix}/webhooks/events?limit=20`, creds);
    return ((listed.body?.items ?? []) as { id: string }[]).map((e) => e.id);
  };
  const sandboxEvents = await events(sandbox, '/sandbox');
  if (sandboxEvents.length === 0) throw new Error('no webhook events in the sandbox project');
  return { operatorId, sandbox, testnet, sandboxInvoices, testnetInvoices, sandboxEvents, testnetEvents: await events(testnet, '') };
}

async function listTools(url: string, pat: string): Promise<McpTool[]> {
  const response = await fetch(`${url}${MCP_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${pat}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const body = (await response.json()) as { result?: { tools: McpTool[] } };
  if (!body.result) throw new Error(`tools/list: ${JSON.stringify(body)}`);
  return body.result.tools;
}

/** Row count of every table, by `schema.table`. */
export async function rowCounts(world: FuzzWorld): Promise<Map<string, number>> {
  const counts = world.tables.map((name) => {
    const [schema, table] = name.split('.') as [string, string];
    return sql`select ${name}::text as name, count(*)::int as n from ${sqlIdentifier(schema, table)}`;
  });
  const rows = await sqlQuery<{ name: string; n: number }>(world.gw.kernel.cradle.db, sqlJoin(counts, sql` union all `));
  return new Map(rows.map((r) => [r.name, r.n]));
}

/** Tables whose count changed, outside {@link REFUSAL_WRITES}. */
export function countChanges(before: Map<string, number>, after: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [name, n] of after) {
    if (name in REFUSAL_WRITES) continue;
    const was = before.get(name) ?? 0;
    if (was !== n) out.push(`${name} ${was} -> ${n}`);
  }
  return out;
}
