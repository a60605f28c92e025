import test from 'ava';
import { ABANDON_EVM_ADDRESSES, evmChainConformance } from '@gw/chain-evm/testing';
import { bscChain } from './index.js';

const [ADDR_0] = ABANDON_EVM_ADDRESSES;

// Binance-Peg stablecoins have 18 decimals; neither has a BSC testnet contract.
evmChainConformance(test, {
  module: bscChain,
  decimals: { bnb: 18, usdt_bep20: 18, usdc_bep20: 18 },
  paymentUris: [
    ['usdt_bep20', 'mainnet', 10n ** 18n, `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${ADDR_0}&uint256=1000000000000000000`],
    ['usdc_bep20', 'mainnet', 5n, `ethereum:0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d@56/transfer?address=${ADDR_0}&uint256=5`],
    ['bnb', 'testnet', 3n, `ethereum:${ADDR_0}@97?value=3`],
  ],
});
