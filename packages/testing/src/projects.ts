import { CLI_ACTOR, type ChainId, type ProjectKind } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
// Real signers (published mnemonics, each chain's own library).
import { adaWallet, btcTestnetWallet, btcWallet, ethWallet, evmAccountWallet, ltcTestnetWallet, tonWallet, tronWallet, type TestWallet } from './signers.js';

function walletFor(chain: ChainId, kind: ProjectKind): TestWallet {
  const evm = { ...ethWallet, chain };
  const wallets: Record<string, TestWallet> = {
    btc: kind === 'production' ? btcWallet : btcTestnetWallet,
    eth: evm,
    polygon: evm,
    bsc: evm,
    base: evm,
    tron: tronWallet,
    ada: adaWallet,
    ton: tonWallet,
    ...(kind === 'production' ? {} : { ltc: ltcTestnetWallet }),
  };
  const wallet = wallets[chain];
  if (!wallet) throw new Error(`no test wallet for chain ${chain}`);
  return wallet;
}

export interface TestProject {
  readonly projectId: string;
  readonly secret: string;
}

/**
 * A project of `kind` with a verified wallet and a replenished pool for each of `chains` (TRON
 * addresses activated), plus its API credentials. Every project gets the same test keys (so the
 * same addresses) unless `evmAccount` picks another account for its EVM chains. `replenish: false`
 * leaves the pools as verification left them (empty, without a worker).
 */
export async function projectWithPools(
  gw: TestKernel,
  operatorId: string,
  chains: readonly ChainId[],
  kind: ProjectKind = 'production',
  options: { evmAccount?: number; replenish?: boolean } = {},
): Promise<TestProject> {
  const { tenancyProjects, walletsWallets, addressPoolReplenisher, addressPoolService, addressPoolStatus } = gw.kernel.cradle;
  const created = await tenancyProjects.create({ name: `p-${Math.random().toString(36).slice(2)}`, kind, operator: operatorId }, CLI_ACTOR);
  const projectId = created.project.id;
  for (const chain of chains) {
    const wallet =
      options.evmAccount !== undefined && ['eth', 'polygon', 'bsc', 'base'].includes(chain)
        ? { ...evmAccountWallet(options.evmAccount), chain }
        : walletFor(chain, kind);
    const { challenge } = await walletsWallets.register({ projectId, chain, xpub: wallet.xpub }, CLI_ACTOR);
    await walletsWallets.verify({ projectId, chain, signature: await wallet.sign(challenge.message) }, CLI_ACTOR);
  }
  if (chains.length > 0 && options.replenish !== false) await addressPoolReplenisher.replenish({ projectId });
  if (chains.includes('tron')) {
    const [status] = await addressPoolStatus.status({ projectId, chain: 'tron' });
    for (const address of status!.awaiting_activation) {
      await addressPoolService.activate({ projectId, chain: 'tron', address }, CLI_ACTOR);
    }
  }
  return { projectId, secret: created.credentials.api_secret };
}

/**
 * Makes the project's pools unable to grow on the request path (the address pool derives more when
 * none is free): each pool's highest row takes the last index a key derives. Tests of what happens
 * once a pool is saturated (overlay, exhaustion) use it.
 */
export async function saturatePools(gw: TestKernel, projectId: string): Promise<void> {
  const { db } = gw.kernel.cradle;
  const highest = await db('address_pool_addresses')
    .where({ project_id: projectId })
    .distinctOn('wallet_id')
    .orderBy([{ column: 'wallet_id' }, { column: 'derivation_index', order: 'desc' }])
    .select('id');
  for (const row of highest)
    await db('address_pool_addresses')
      .where({ id: row.id })
      .update({ derivation_index: 2 ** 31 - 1 });
}
