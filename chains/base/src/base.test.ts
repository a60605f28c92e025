import test from 'ava';
import { ABANDON_EVM_ADDRESSES, evmChainConformance } from '@gw/chain-evm/testing';
import { baseChain } from './index.js';

const [ADDR_0] = ABANDON_EVM_ADDRESSES;
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const USDC_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

evmChainConformance(test, {
  module: baseChain,
  decimals: { eth_base: 18, usdc_base: 6 },
  paymentUris: [
    ['eth_base', 'mainnet', 10n ** 18n, `ethereum:${ADDR_0}@8453?value=1000000000000000000`],
    ['usdc_base', 'mainnet', 25_500_000n, `ethereum:${USDC}@8453/transfer?address=${ADDR_0}&uint256=25500000`],
    ['usdc_base', 'testnet', 1n, `ethereum:${USDC_SEPOLIA}@84532/transfer?address=${ADDR_0}&uint256=1`],
  ],
});

test('definition: priced as ETH and USDC, native Circle USDC on both networks, off by default', (t) => {
  const d = baseChain.definition;
  t.false(baseChain.enabledByDefault);
  t.deepEqual(
    d.coins.map((c) => c.price.symbol),
    ['ETH', 'USDC'],
  );
  const usdc = d.coins.find((c) => c.id === 'usdc_base')!;
  t.deepEqual(usdc.contracts, { base: USDC, 'base-sepolia': USDC_SEPOLIA });
  t.is(usdc.sandboxContract, undefined, 'Circle publishes a Sepolia contract: no synthetic one');
});
