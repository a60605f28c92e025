import type { ChainModule } from '@gw/kernel';
import { adaChain } from '@gw/chain-ada';
import { baseChain } from '@gw/chain-base';
import { bscChain } from '@gw/chain-bsc';
import { btcChain } from '@gw/chain-btc';
import { ethChain } from '@gw/chain-eth';
import { ltcChain } from '@gw/chain-ltc';
import { polygonChain } from '@gw/chain-polygon';
import { solChain } from '@gw/chain-sol';
import { tonChain } from '@gw/chain-ton';
import { tronChain } from '@gw/chain-tron';

/**
 * Every chain of the build, in the composition's order (apps/gateway/src/chains.ts); `chains.enabled`
 * unset runs the default ones (the spec's seven). Listed here rather than taken from the gateway app,
 * whose package depends on every plugin: a plugin's tests depending on it would be a package cycle.
 * apps/gateway/src/chains.test.ts checks that both lists are the same modules in the same order.
 */
export const ALL_CHAINS: readonly ChainModule[] = [btcChain, ethChain, tronChain, adaChain, polygonChain, bscChain, tonChain, ltcChain, baseChain, solChain];

/** Fixed USD rates (the rates plugin's offline provider), so amount_usd invoices are deterministic. */
export const FIXED_RATES = { BTC: '65000', ETH: '3200.5', USDT: '1', USDC: '0.9998', TRX: '0.25', ADA: '0.75', POL: '0.5', BNB: '600', TON: '5.5', SOL: '150' };
