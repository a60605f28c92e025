import { type ChainId, type ChainModule, CLI_ACTOR, type KernelRole, type ProjectKind } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { addressPoolPlugin } from '../src/index.js';
// Real signers of the wallets plugin's tests (published mnemonics, each chain's own library).
import { ethWallet, tonWallet, tronWallet, type TestWallet } from '@gw/testing';

const WALLETS: Partial<Record<ChainId, TestWallet>> = { eth: ethWallet, tron: tronWallet, ton: tonWallet };

/** A fresh project with a verified wallet for each of `chains`. */
export async function projectWithWallets(gw: TestKernel, operatorId: string, chains: readonly ChainId[], kind: ProjectKind = 'production'): Promise<string> {
  const { tenancyProjects, walletsWallets } = gw.kernel.cradle;
  const projectId = (await tenancyProjects.create({ name: `p-${Math.random().toString(36).slice(2)}`, kind, operator: operatorId }, CLI_ACTOR)).project.id;
  for (const chain of chains) {
    const wallet = WALLETS[chain]!;
    const { challenge } = await walletsWallets.register({ projectId, chain, xpub: wallet.xpub }, CLI_ACTOR);
    await walletsWallets.verify({ projectId, chain, signature: await wallet.sign(challenge.message) }, CLI_ACTOR);
  }
  return projectId;
}

export { waitFor } from '@gw/kernel/testing';

/**
 * A kernel of the pool and what it stands on (tenancy, wallets) with `chains`, in `role`, with the
 * pool's `config`, and a new operator named `operator`.
 */
export async function startPoolKernel(options: {
  chains: readonly ChainModule[];
  role: KernelRole;
  config: Record<string, unknown>;
  operator: string;
}): Promise<{ gw: TestKernel; operatorId: string }> {
  const gw = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin],
    chains: options.chains,
    role: options.role,
    config: options.config,
  });
  return { gw, operatorId: (await gw.kernel.cradle.tenancyOperators.create(options.operator, CLI_ACTOR)).id };
}
