import type { ExecutionContext } from 'ava';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { signedFetch, startTestKernel, waitFor, type TestKernel, type TestKernelOptions } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { ALL_CHAINS, FIXED_RATES } from '@gw/testing';
import { FAST_RETRIES, projectWithPools, WEBHOOK_PLUGINS, type Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { watchersPlugin } from '../src/index.js';
import { scanOnce } from './scan-once.js';

/** What a watcher end-to-end test reads once its `before` hook has run. */
export interface ScenarioContext {
  readonly gw: TestKernel;
  readonly project: TestProject;
  readonly receiver: Receiver;
}

/**
 * The gateway of a real-node end-to-end test: the build's chains as shipped (a regtest network is
 * chosen by config `chains.testNetworks`, never composed in code), every plugin a payment needs
 * through to the signed webhook, watching one network of one chain through the node's JSON-RPC (`bitcoin-core` provider
 * kind) from the block after `startHeight`, with passes driven by the test itself; and a testnet
 * project with pools for `coin` whose default webhook URL is the receiver.
 */
export async function startRegtestGateway(options: {
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly provider: { readonly name: string; readonly url: string; readonly username: string; readonly password: string; readonly zmqUrl?: string };
  readonly startHeight: number;
  readonly receiver: Receiver;
  /** More config (enabled chains, rates of the chain's asset, poll interval), over the defaults. */
  readonly config?: Readonly<Record<string, unknown>>;
}): Promise<{ gw: TestKernel; project: TestProject }> {
  const gw = await startWatchersKernel(
    { [options.chain]: { [options.network]: { providers: [{ ...options.provider, kind: 'bitcoin-core' }], startHeight: options.startHeight } } },
    { ...drivenByTests(20), ...options.config },
  );
  return { gw, project: await watchedProject(gw, options.receiver, `watchers-${options.provider.name}`, options.coin) };
}

/**
 * A gateway kernel (every chain as shipped, the plugins through to the signed webhook and the
 * watchers, fixed rates; role `all` and a fresh database unless `on` names others), its watchers
 * configured with `watching` (config `plugins.watchers.chains`); `config` adds or overrides dotted keys.
 */
export function startWatchersKernel(
  watching: Record<string, unknown>,
  config: Readonly<Record<string, unknown>> = {},
  on: Pick<TestKernelOptions, 'role' | 'database'> = {},
): Promise<TestKernel> {
  return startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin],
    chains: ALL_CHAINS,
    role: on.role ?? 'all',
    ...(on.database === undefined ? {} : { database: on.database }),
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.watchers.chains': watching, ...config },
  });
}

/** Config of a watched network no pass ever scans (its provider URL answers nothing). */
export const UNSCANNED = { providers: [{ name: 'unused', url: 'http://127.0.0.1:9' }] } as const;

/**
 * Config of a gateway whose tests drive each scan pass themselves (the job loop idles): pools of
 * `poolSize` fresh addresses (every invoice its own, no overlay sharing) and webhooks to a local
 * receiver, retried fast.
 */
export function drivenByTests(poolSize: number): Record<string, unknown> {
  return {
    'plugins.address-pool.targetFree': poolSize,
    'plugins.address-pool.hardCap': poolSize,
    'plugins.webhooks.allowPrivateTargets': true,
    ...FAST_RETRIES,
    'plugins.watchers.scanIntervalSeconds': 3600,
  };
}

/** A testnet project of a new operator named `operator`, with a verified wallet and pool on `chain`, its webhook URL at `receiver`'s `/hooks`. */
export async function watchedProject(gw: TestKernel, receiver: Receiver, operator: string, chain: string): Promise<TestProject> {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create(operator, CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, [chain as ChainId], 'testnet');
  await gw.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks`, CLI_ACTOR);
  return project;
}

/** What the shared steps need of a real regtest node (bcoin, litecoind). */
export interface RegtestNode {
  /** Pays `units` base units to `address` from the node's wallet; the transaction id. */
  send(address: string, units: bigint): Promise<string>;
  /** The transaction ids in the node's mempool. */
  mempool(): Promise<string[]>;
  /** Mines `blocks` blocks; their hashes, oldest first. */
  mine(blocks: number): Promise<string[]>;
  /** The height of the node's tip. */
  height(): Promise<number>;
  /** One JSON-RPC call to the node. */
  rpc(method: string, params: unknown[]): Promise<unknown>;
}

/**
 * The steps the real-node end-to-end tests share, for one chain network: a scan pass (another
 * pass of the job loop may hold the lock: then again; a failed pass throws), an invoice created
 * over the signed REST API, an invoice read back, and the webhooks the receiver got for an
 * invoice (each with its signature and raw body). `context` is read at each call, so the steps can
 * be built before the test's `before` hook sets it up.
 */
export function watcherScenario(context: () => ScenarioContext, chain: string, network: string) {
  const scan = () => scanOnce(context().gw, chain, network);
  const uid = () => `order-${Math.random().toString(36).slice(2)}`;
  const invoice = async (body: Record<string, unknown>) => {
    const { gw, project } = context();
    const created = await signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body: { external_id: uid(), ...body } });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    return created.body;
  };
  const get = async (id: string) => {
    const { gw, project } = context();
    return (await signedFetch(gw.url, `/api/v1/invoices/${id}`, project)).body;
  };
  const eventsOf = (invoiceId: string) =>
    context()
      .receiver.requests.filter((r) => JSON.parse(r.body).data?.invoice_id === invoiceId)
      .map((r) => ({ ...JSON.parse(r.body), signature: String(r.headers['x-service-signature']), raw: r.body }));
  /**
   * Pays the invoice in full from the node: the payment is detected from the mempool (pending),
   * then the threshold's blocks make the invoice `paid` with a signed `invoice.paid` webhook.
   * Returns the payment's transaction id and the hash of the block that holds it.
   */
  const payToPaid = async (t: ExecutionContext, node: RegtestNode, inv: { id: string; address: string; confirmation_threshold: number }, units: bigint) => {
    const txid = await node.send(inv.address, units);
    t.deepEqual(await node.mempool(), [txid]);
    const seen = await scan();
    t.is(seen.mempool?.transfers, 1, 'found in the mempool');
    const detected = await get(inv.id);
    t.is(detected.status, 'detected');
    t.like(detected.transactions[0], { tx_hash: txid, amount_units: String(units), status: 'pending' });

    const [blockHash] = await node.mine(inv.confirmation_threshold);
    await scan();
    const paid = await get(inv.id);
    t.is(paid.status, 'paid');
    t.is(paid.transactions[0].status, 'confirmed');
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
    const paidEvent = eventsOf(inv.id).find((e) => e.event_type === 'invoice.paid')!;
    t.is(paidEvent.data.paid_units, String(units));
    t.is(paidEvent.mode, 'testnet');
    t.true(verifyWebhook({ rawBody: paidEvent.raw, header: paidEvent.signature, secrets: [context().project.secret] }).ok);
    return { txid, blockHash: blockHash! };
  };
  /**
   * Invalidates `blockHash`, the block holding the payment `payToPaid` confirmed: the tip goes
   * back to the block before it, the fork height (answered).
   */
  const invalidatePaid = async (t: ExecutionContext, node: RegtestNode, inv: { confirmation_threshold: number }, blockHash: string) => {
    const paidHeight = await node.height();
    await node.rpc('invalidateblock', [blockHash]);
    const forkHeight = await node.height();
    t.is(forkHeight, paidHeight - inv.confirmation_threshold);
    return forkHeight;
  };
  /**
   * Pays 0.4 of a 1-coin invoice of `coin` (8 decimals) in a block past its threshold: the invoice
   * ends `partial`, with an `invoice.partial` webhook naming the paid units.
   */
  const underpayToPartial = async (t: ExecutionContext, node: RegtestNode, coin: string) => {
    const inv = await invoice({ coin, amount_crypto: '1' });
    const txid = await node.send(inv.address, 40_000_000n);
    await node.mine(inv.confirmation_threshold);
    await scan();
    const partial = await get(inv.id);
    t.is(partial.status, 'partial');
    t.like(partial.transactions[0], { tx_hash: txid, amount_units: '40000000', status: 'confirmed' });
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.partial'), 20_000);
    t.is(eventsOf(inv.id).find((e) => e.event_type === 'invoice.partial')!.data.paid_units, '40000000');
  };
  /**
   * A stray payment of 0.1 `coin` to a free pool address: an orphan, listed from the mempool on
   * (the node's whole mempool is matched against every pool address), then in its block, and
   * attributed over the REST API to a new `paid` invoice with its `invoice.paid` webhook.
   */
  const strayToAttributed = async (t: ExecutionContext, node: RegtestNode, coin: string) => {
    const { gw, project } = context();
    const [row] = await gw.kernel.cradle
      .db('address_pool_addresses')
      .where({ project_id: project.projectId, chain, state: 'available' })
      .orderBy('derivation_index', 'desc')
      .select('address');
    const spare = (row as { address: string }).address;
    const txid = await node.send(spare, 10_000_000n);
    t.is((await scan()).mempool?.transfers, 1);
    const early = await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${txid}`, project);
    t.like(early.body.items[0], { tx_hash: txid, to_address: spare, status: 'mempool', block_height: null, attributed: false });
    await node.mine(6);
    await scan();
    const listed = await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${txid}`, project);
    t.is(listed.status, 200, JSON.stringify(listed.body));
    t.like(listed.body.items[0], { tx_hash: txid, to_address: spare, amount_units: '10000000', coin, chain, network, attributed: false });

    const externalId = uid();
    const attributed = await signedFetch(gw.url, `/api/v1/orphan-payments/${txid}/attribute`, {
      ...project,
      method: 'POST',
      body: { external_id: externalId, tx_output_index: listed.body.items[0].tx_output_index },
    });
    t.is(attributed.status, 200, JSON.stringify(attributed.body));
    t.like(attributed.body, { status: 'paid', external_id: externalId, amount_crypto_units: '10000000', coin, address: spare });
    t.is(attributed.body.transactions[0].tx_hash, txid);
    await waitFor(async () => eventsOf(attributed.body.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
  };
  return { scan, uid, invoice, get, eventsOf, payToPaid, invalidatePaid, underpayToPartial, strayToAttributed };
}
