import test from 'ava';
import { ABANDON_EVM_ADDRESSES, evmChainConformance } from '@gw/chain-evm/testing';
import { polygonChain } from './index.js';

const [ADDR_0] = ABANDON_EVM_ADDRESSES;

evmChainConformance(test, {
  module: polygonChain,
  decimals: { pol: 18, usdt_polygon: 6, usdc_polygon: 6 },
  paymentUris: [
    ['usdt_polygon', 'mainnet', 1_000_000n, `ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=${ADDR_0}&uint256=1000000`],
    ['usdc_polygon', 'mainnet', 1n, `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${ADDR_0}&uint256=1`],
    ['usdc_polygon', 'testnet', 5n, `ethereum:0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582@80002/transfer?address=${ADDR_0}&uint256=5`],
    ['pol', 'testnet', 2n, `ethereum:${ADDR_0}@80002?value=2`],
  ],
});
