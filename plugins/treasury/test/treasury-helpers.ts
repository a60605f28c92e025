/**
 * What the treasury's real-node tests share: the REST calls with a bearer token (each answer
 * checked against the route's documented schemas), a scan pass the test drives, a paid invoice,
 * and the offline signature by `gateway-signer` (packages/signer) run as a process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AnyPlugin, CLI_ACTOR, type ChainId, contribute, definePlugin, withDeps } from '@gw/kernel';
import type { Knex } from 'knex';
import { responseMismatches, signedFetch, startTestKernel, type TestKernel, waitFor } from '@gw/kernel/testing';
import { ALL_CHAINS, Bcoin, bcoinRegtestConfig, FAST_RETRIES, MNEMONIC, projectWithPools, type TestProject } from '@gw/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { type PlanStatusChange, treasuryPlugin, TREASURY_PLAN_OBSERVERS } from '../src/index.js';
import type { PlanView } from '../src/plan-view.js';

export type Api = (method: 'GET' | 'POST', path: string, body?: unknown, bearer?: string) => Promise<{ status: number; body: any }>;

/** Calls of the treasury API with `token` (another with `bearer`). */
export function treasuryApi(gw: () => TestKernel, token: () => string): Api {
  return async (method, path, body, bearer) => {
    const response = await fetch(gw().url + path, {
      method,
      headers: { authorization: `Bearer ${bearer ?? token()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = { status: response.status, body: await response.json() };
    const problems = responseMismatches(gw().kernel, method, path.split('?')[0]!, answer.status, answer.body);
    if (problems.length > 0) throw new Error(`${method} ${path}: ${problems.join('; ')}`);
    return answer;
  };
}

/** An operator named `operator`, a testnet project of its with `chain`'s pools filled, and a token of the operator with treasury:read and treasury:write. */
export async function treasuryOperator(gw: TestKernel, operator: string, chain: string): Promise<{ operatorId: string; project: TestProject; token: string }> {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create(operator, CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, [chain as ChainId], 'testnet');
  const token = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: operatorId }, CLI_ACTOR)).token;
  return { operatorId, project, token };
}

/**
 * The configuration watching `node` as btc/regtest from its next block with the watchers and the
 * treasury (scans and the treasury's jobs driven by the test; a configured fee rate, since bcoin
 * estimates nothing on regtest) and a pool of `poolSize` addresses a project.
 */
export async function bcoinTreasuryConfig(node: Bcoin, options: { poolSize: number; feeRate: bigint }): Promise<Record<string, unknown>> {
  return {
    ...(await bcoinRegtestConfig(node)),
    'plugins.address-pool.targetFree': options.poolSize,
    'plugins.address-pool.hardCap': options.poolSize,
    'plugins.watchers.scanIntervalSeconds': 3600,
    ...FAST_RETRIES,
    'plugins.treasury.networks': { btc: { regtest: { feeRate: String(options.feeRate), feeCeiling: '50' } } },
    'plugins.treasury.trackCron': '0 0 1 1 *',
    'plugins.treasury.reconcileCron': '0 0 1 1 *',
  };
}

/** {@link Bcoin.startMature} and a gateway of `plugins` plus the watchers and the treasury, configured by {@link bcoinTreasuryConfig}. */
export async function startBcoinTreasury(options: {
  plugins: readonly AnyPlugin[];
  poolSize: number;
  feeRate: bigint;
  config?: Record<string, unknown>;
}): Promise<{ node: Bcoin; gw: TestKernel }> {
  const node = await Bcoin.startMature();
  const gw = await startTestKernel({
    plugins: [...options.plugins, watchersPlugin, treasuryPlugin],
    chains: ALL_CHAINS,
    role: 'all',
    config: { ...(await bcoinTreasuryConfig(node, options)), ...options.config },
  });
  return { node, gw };
}

/**
 * A planned btc/regtest transaction through to its confirmation, as the CLI: signed offline,
 * imported, broadcast, taken into bcoin's mempool (it answers sendrawtransaction before), mined six
 * deep and scanned. Answers the broadcast plan and the tracking pass's confirmed plans.
 */
export async function confirmOnBcoin(gw: TestKernel, node: Bcoin, plan: PlanView): Promise<{ sent: PlanView; confirmed: readonly string[] }> {
  const cradle = gw.kernel.cradle;
  const { signed } = await signOffline(plan.plan_file!);
  await cradle.treasurySignedImport.import({ planId: plan.id, text: signed }, {}, CLI_ACTOR);
  const sent = await cradle.treasuryTracker.broadcast(plan.id, {}, CLI_ACTOR);
  await waitFor(async () => (await node.mempool()).includes(sent.txid!), 20_000);
  await node.mine(6);
  await scanOnce(gw, 'btc', 'regtest');
  return { sent, confirmed: (await cradle.treasuryTracker.track()).confirmed };
}

/**
 * A test plugin contributing one observer of payout plans: `onStatus` hears each status change
 * inside the change's transaction `trx` (a throw rolls the change back); `db` reads outside it.
 */
export function payoutObserverProbe(onStatus: (trx: Knex.Transaction, change: PlanStatusChange, db: Knex) => Promise<void>): AnyPlugin {
  return definePlugin({
    id: 'payout-observer-probe',
    dependsOn: ['treasury'],
    contributes: [
      contribute(
        TREASURY_PLAN_OBSERVERS,
        withDeps(['db'], (deps) => [
          { kinds: ['payout'] as const, onStatus: (trx: Knex.Transaction, change: PlanStatusChange) => onStatus(trx, change, deps.db) },
        ]),
      ),
    ],
  });
}

/** An invoice of `units` (8 decimals) created over the signed API and paid from `send`, into the mempool. */
export async function paidInvoice(
  gw: TestKernel,
  project: TestProject,
  coin: string,
  units: bigint,
  send: (address: string, units: bigint) => Promise<string>,
): Promise<{ id: string; address: string; txid: string }> {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: {
      external_id: `t-${Math.random().toString(36).slice(2)}`,
      coin,
      amount_crypto: `${units / 100_000_000n}.${(units % 100_000_000n).toString().padStart(8, '0')}`,
    },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const txid = await send(created.body.address, units);
  return { id: created.body.id, address: created.body.address, txid };
}

const SIGNER = fileURLToPath(new URL('../bin/gateway-signer.mjs', import.meta.resolve('@gw/signer')));

/** Signs a plan file with `gateway-signer` (the test mnemonic on its standard input, confirmation given by --yes): the signed file's text and what it showed. */
export async function signOffline(planFile: object, options: { allowUnlistedTokens?: readonly string[] } = {}): Promise<{ signed: string; review: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'treasury-plan-'));
  try {
    const plan = join(dir, 'plan.json');
    const out = join(dir, 'signed.json');
    await writeFile(plan, JSON.stringify(planFile));
    const child = spawn(
      process.execPath,
      [SIGNER, 'sign', plan, '--key-stdin', '--yes', '--out', out, ...(options.allowUnlistedTokens ?? []).flatMap((c) => ['--allow-unlisted-token', c])],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdin.end(`${MNEMONIC}\n`);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`gateway-signer exited ${code}: ${output}`);
    return { signed: await readFile(out, 'utf8'), review: output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
