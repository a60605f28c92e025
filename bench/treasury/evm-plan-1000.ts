/**
 * Benchmark: an EVM sweep plan over `--addresses` token addresses (default 1,000) built in under
 * 2 s (issue 36). Set-up (not measured): anvil (Prague) with the test Multicall3, ERC-20 and
 * EIP-3009 token (packages/testing EvmTreasuryChain), the addresses derived from the test
 * mnemonic's xpub as the gateway derives them, balances written into anvil's state, the 7702
 * sweeper deployed. Measured: `AccountTreasury.build` of round 1 (reading balances through
 * Multicall3, nonces and code in JSON-RPC batches, fees, the gas estimates, then planning every
 * step) for each method (the token addresses hold no ETH: a top-up plan is 1,000 top-ups and 1,000
 * transfers), and `holdings` of the same addresses; `--repeat` times each (default 5),
 * median and maximum wall time. Also the native sweep, and the top-up plan read without Multicall3.
 *
 * Run: node_modules/.bin/node --import tsx bench/treasury/evm-plan-1000.ts [--addresses 1000] [--repeat 5]
 */
import { cpus } from 'node:os';
import type { AccountSweepRequest, AccountTreasury } from '@gw/kernel';
import { tokenSweeperInitCode } from '@gw/chain-evm';
import { EvmTreasuryChain } from '@gw/testing';
import { benchOptions } from '../bench-options.js';
import { percentile } from '../measure.js';

const options = benchOptions({ addresses: 1000, repeat: 5 });
const chain = await EvmTreasuryChain.start({ gasLimit: 1_000_000_000n });
try {
  let t0 = performance.now();
  const sources = Array.from({ length: options.addresses }, (_, i) => chain.source(i));
  await chain.setBalances(sources.map((s, i) => ({ address: s.address, tok: 10n ** 18n + BigInt(i), usdc: 10n ** 6n + BigInt(i) })));
  await chain.setBalances([{ address: chain.gasAccount.address, eth: 10n ** 24n }]);
  const destination = EvmTreasuryChain.freshAddress();
  const sweeper = await chain.anvil.deploy(chain.funder, tokenSweeperInitCode(destination));
  console.error(`set-up: ${options.addresses} addresses in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const base = { sources, destination, operatorAccounts: { gas: chain.gasAccount }, sweeperContract: sweeper };
  const { multicall3: _, ...withoutMulticall } = chain.network;
  const perAddress = EvmTreasuryChain.treasuryOf(chain.adapter, withoutMulticall, chain.anvil.url);
  const cases: [string, AccountTreasury, AccountSweepRequest][] = [
    ['gas_top_up (tok)', chain.treasury, { ...base, coin: 'tok', method: 'gas_top_up' }],
    ['eip7702 (tok)', chain.treasury, { ...base, coin: 'tok', method: 'eip7702' }],
    ['eip3009 (usdc)', chain.treasury, { ...base, coin: 'usdc', method: 'eip3009' }],
    ['gas_top_up (tok), no Multicall3', perAddress, { ...base, coin: 'tok', method: 'gas_top_up' }],
    ['native (eth)', chain.treasury, { ...base, coin: 'eth', method: 'native' }],
  ];
  const results: Record<string, { steps: number; median_ms: number; max_ms: number }> = {};
  for (const [name, treasury, request] of cases) {
    // The token addresses hold no ETH (every top-up plan has 2,000 steps); the native sweep's get some.
    if (name.startsWith('native')) await chain.setBalances(sources.map((s) => ({ address: s.address, eth: 10n ** 16n })));
    await treasury.build(request); // warm-up
    const times: number[] = [];
    let steps = 0;
    for (let i = 0; i < options.repeat; i++) {
      t0 = performance.now();
      const plan = await treasury.build(request);
      times.push(performance.now() - t0);
      steps = plan.steps.length;
    }
    times.sort((a, b) => a - b);
    results[name] = { steps, median_ms: Math.round(percentile(times, 50)), max_ms: Math.round(times[times.length - 1]!) };
  }
  const times: number[] = [];
  for (let i = 0; i < options.repeat; i++) {
    t0 = performance.now();
    await chain.treasury.holdings(sources.map((s) => s.address));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  results['holdings (eth, tok, usdc)'] = { steps: 0, median_ms: Math.round(percentile(times, 50)), max_ms: Math.round(times[times.length - 1]!) };
  console.log(JSON.stringify({ addresses: options.addresses, repeat: options.repeat, cpus: cpus().length, cpu: cpus()[0]?.model, results }, null, 2));
  if (results['gas_top_up (tok)']!.max_ms >= 2000) {
    console.error('FAIL: the 1,000-address plan took 2 s or more');
    process.exitCode = 1;
  }
} finally {
  await chain.stop();
}
