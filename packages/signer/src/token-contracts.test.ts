import test from 'ava';
import type { AccountPlanFile } from '@gw/chain-api';
import { getAddress } from 'ethers';
import { TronWeb } from 'tronweb';
import {
  accountPlan,
  erc20Transfer,
  eip3009Step,
  evmTx,
  evmSigner,
  evmWallet,
  signAccountPlan,
  externalEvmAddress,
  SEPOLIA_CHAIN_ID,
  step,
  transferWithAuthorization,
  tronAccount,
  tronTrc20Transfer,
} from './account-testing.js';
import { MNEMONIC } from './testing.js';

// The security review of issue 36: any contract called with transfer/transferWithAuthorization was
// shown as the plan's coin. A token transfer must now go through the signer's own listed contract of
// the plan's coin (account-chains.ts `tokens`), or one the operator names with --allow-unlisted-token.

const sign = (plan: AccountPlanFile, flags: string[] = []) => signAccountPlan(plan, MNEMONIC, flags);

const USDC_SEPOLIA = getAddress('0x1c7d4b196cb0c7b01d743fbc6116a902379c7238');
const FAKE = getAddress('0x00000000000000000000000000000000000fa4e0');

function erc20Plan(contract: string, network = 'sepolia', chainId = SEPOLIA_CHAIN_ID) {
  const destination = externalEvmAddress();
  const tx = evmTx({ to: contract, data: erc20Transfer(destination, 5n), nonce: 1, gasLimit: 65_000n, chainId });
  return accountPlan({ chain: 'eth', network, evm_chain_id: chainId, coin: 'usdc_erc20', method: 'gas_top_up', destination, moved_units: '5' }, [
    step({
      id: 'transfer-2',
      signer: evmSigner(2),
      format: 'evm-tx',
      data: tx.hex,
      nonce: 1n,
      to: destination,
      moves: { usdc_erc20: 5n },
      fee: tx.fee,
    }),
  ]);
}

test("an ERC-20 transfer on a contract that is not the coin's listed one is refused, even with --allow-unlisted-token", async (t) => {
  t.is((await sign(erc20Plan(USDC_SEPOLIA))).code, 0);
  for (const flags of [[], ['--allow-unlisted-token', FAKE]]) {
    const run = await sign(erc20Plan(FAKE), flags);
    t.not(run.code, 0);
    t.regex(run.stderr, new RegExp(`refused \\(plan_mismatch\\): step transfer-2: the token contract ${FAKE} is not usdc_erc20's on sepolia, 0x1c7D4B196`));
  }
});

test("an EIP-3009 authorization of a contract that is not the coin's listed one is refused", async (t) => {
  const destination = externalEvmAddress();
  const typed = transferWithAuthorization({ token: FAKE, from: evmWallet(4).address, to: destination, value: 4n });
  const plan = accountPlan(
    { chain: 'eth', network: 'sepolia', evm_chain_id: SEPOLIA_CHAIN_ID, coin: 'usdc_erc20', method: 'eip3009', destination, moved_units: '4' },
    [eip3009Step(4, typed, destination, { usdc_erc20: 4n })],
  );
  t.regex((await sign(plan)).stderr, /refused \(plan_mismatch\): step auth-4: the token contract 0x0+FA4e0 is not usdc_erc20's on sepolia/i);
});

test('a token the signer lists no contract for (a local network) needs --allow-unlisted-token naming it, and is shown as UNLISTED', async (t) => {
  const plan = erc20Plan(FAKE, 'anvil', 31337);
  const refused = await sign(plan);
  t.regex(refused.stderr, new RegExp(`refused \\(unsupported\\): step transfer-2: unlisted token contract ${FAKE}: .* --allow-unlisted-token ${FAKE}`));
  t.regex((await sign(plan, ['--allow-unlisted-token', USDC_SEPOLIA])).stderr, /refused \(unsupported\): step transfer-2: unlisted token contract/);
  const run = await sign(plan, ['--allow-unlisted-token', FAKE.toLowerCase()]);
  t.is(run.code, 0, run.stderr);
  t.true(run.stderr.includes(`!!! UNLISTED token contract ${FAKE}: allowed by --allow-unlisted-token only !!!`));
  t.true(run.stderr.includes(`!!! UNLISTED token contract ${FAKE}: the signer lists no usdc_erc20 contract on anvil; check it is yours !!!`));
});

test("a TRC-20 transfer on a contract that is not USDT's is refused", async (t) => {
  const destination = TronWeb.createRandom().address as string;
  const deposit = tronAccount(3);
  const fake = TronWeb.createRandom().address as string;
  const tx = await tronTrc20Transfer(deposit.address, fake, destination, 7n);
  const plan = accountPlan({ chain: 'tron', network: 'tron', coin: 'usdt_trc20', method: 'energy_burn', destination, moved_units: '7' }, [
    step({
      id: 'transfer-3',
      signer: { address: deposit.address, path: "m/44'/195'/0'/0/3" },
      format: 'tron-tx',
      data: JSON.stringify(tx),
      nonce: null,
      to: destination,
      moves: { usdt_trc20: 7n },
      fee: 30_000_000n,
    }),
  ]);
  t.regex(
    (await sign(plan)).stderr,
    new RegExp(`refused \\(plan_mismatch\\): step transfer-3: the token contract ${fake} is not usdt_trc20's on tron, TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`),
  );
});
