import test from 'ava';
import { ABANDON_EVM_ADDRESSES, evmChainConformance } from '@gw/chain-evm/testing';
import { ethChain } from './index.js';

const [ADDR_0] = ABANDON_EVM_ADDRESSES;

evmChainConformance(test, {
  module: ethChain,
  decimals: { eth: 18, usdt_erc20: 6, usdc_erc20: 6 },
  paymentUris: [
    ['eth', 'mainnet', 10n ** 18n, `ethereum:${ADDR_0}@1?value=1000000000000000000`],
    ['usdt_erc20', 'mainnet', 25_500_000n, `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${ADDR_0}&uint256=25500000`],
    ['usdc_erc20', 'testnet', 1n, `ethereum:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238@11155111/transfer?address=${ADDR_0}&uint256=1`],
  ],
});
