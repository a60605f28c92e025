/**
 * Benchmark: the gas spent per token moved by each EVM sweep method on anvil (issue 36), side by
 * side: gas top-up (the gas address's top-ups plus each address's transfer), the EIP-7702 sweeper
 * (first sweep, carrying the delegations; and a later sweep of addresses already delegated) and
 * EIP-3009 (transferWithAuthorization), the last two submitted through Multicall3 in one
 * transaction. All three move the same EIP-3009 token (OpenZeppelin's ERC-20 with USDC's
 * `transferWithAuthorization`, packages/testing/contracts) from `--addresses` addresses each
 * (default 20, their own per method) to a fresh destination per method, so each pays the
 * destination's first credit once. Gas is the receipts' `gasUsed`, summed over every transaction
 * of the plan, divided by the addresses swept.
 *
 * Run: node_modules/.bin/node --import tsx bench/treasury/evm-gas-per-method.ts [--addresses 20]
 */
import { cpus } from 'node:os';
import type { AccountSweepMethod } from '@gw/kernel';
import { tokenSweeperInitCode } from '@gw/chain-evm';
import { EvmTreasuryChain } from '@gw/testing';
import { benchOptions } from '../bench-options.js';

const options = benchOptions({ addresses: 20 });
const chain = await EvmTreasuryChain.start();
try {
  await chain.setBalances([{ address: chain.gasAccount.address, eth: 10n ** 24n }]);
  let next = 0;
  const results: Record<string, { transactions: number; gas_total: string; gas_per_token_moved: number }> = {};
  const run = async (label: string, method: AccountSweepMethod, reuse?: { indexes: number[]; destination: string; sweeper?: string }) => {
    const indexes = reuse?.indexes ?? Array.from({ length: options.addresses }, () => next++);
    const destination = reuse?.destination ?? EvmTreasuryChain.freshAddress();
    const sources = indexes.map((i) => chain.source(i));
    await chain.setBalances(sources.map((s, i) => ({ address: s.address, usdc: 1_000_000n * BigInt(i + 1) })));
    const sweeper = method === 'eip7702' ? (reuse?.sweeper ?? (await chain.anvil.deploy(chain.funder, tokenSweeperInitCode(destination)))) : undefined;
    const plan = await chain.treasury.build({
      coin: 'usdc',
      sources,
      destination,
      method,
      operatorAccounts: { gas: chain.gasAccount },
      ...(sweeper ? { sweeperContract: sweeper } : {}),
    });
    const receipts = await chain.execute(plan);
    if (receipts.some((r) => r.reverted)) throw new Error(`${label}: a transaction reverted`);
    for (const s of sources)
      if ((await chain.balanceOf(chain.contracts.eip3009, s.address)) !== 0n) throw new Error(`${label}: ${s.address} still holds tokens`);
    const gas = receipts.reduce((sum, r) => sum + r.gasUsed, 0n);
    const perToken = Number(gas) / sources.length;
    results[label] = {
      transactions: receipts.length,
      gas_total: gas.toString(),
      gas_per_token_moved: Math.round(perToken),
    };
    return { indexes, destination, ...(sweeper ? { sweeper } : {}) };
  };
  await run('gas_top_up', 'gas_top_up');
  const first = await run('eip7702 (delegating)', 'eip7702');
  await run('eip7702 (already delegated)', 'eip7702', first);
  await run('eip3009', 'eip3009');
  console.log(JSON.stringify({ addresses: options.addresses, cpus: cpus().length, cpu: cpus()[0]?.model, results }, null, 2));
} finally {
  await chain.stop();
}
