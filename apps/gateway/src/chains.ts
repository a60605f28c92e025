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
 * The chains of this build, part of the composition root: the spec's seven in the spec's order,
 * then the optional ones (off unless config `chains.enabled` names them; each module says so with
 * `enabledByDefault: false`). Config `chains.enabled` picks among these; the API's chain and coin
 * enums, the CLI's choices and the tests' chain lists all come from here.
 *
 * Kept apart from the plugins so tests of a plugin can take the chain list without loading every
 * plugin (they import this file by path: a package dependency on the gateway app would be a cycle).
 */
export const chains: readonly ChainModule[] = [btcChain, ethChain, tronChain, adaChain, polygonChain, bscChain, tonChain, ltcChain, baseChain, solChain];
