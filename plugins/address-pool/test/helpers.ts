import { type ChainId, CLI_ACTOR, type ProjectKind } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
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
