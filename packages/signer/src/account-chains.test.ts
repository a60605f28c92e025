import test from 'ava';
import type { ChainDefinition } from '@gw/chain-api';
import { baseDefinition } from '@gw/chain-base';
import { bscDefinition } from '@gw/chain-bsc';
import { ethDefinition } from '@gw/chain-eth';
import { polygonDefinition } from '@gw/chain-polygon';
import { tonDefinition } from '@gw/chain-ton';
import { tronDefinition } from '@gw/chain-tron';
import { solDefinition } from '@gw/chain-sol';
import { ACCOUNT_CHAINS } from './account-chains.js';

// The signer keeps its own copy of the account chains' networks, chain ids and native coins so that
// it depends on no chain package; here they are compared with the chain packages' definitions.
const TON_GLOBAL_ID = { mainnet: -239, testnet: -3 } as const;

for (const definition of [ethDefinition, polygonDefinition, bscDefinition, baseDefinition, tronDefinition, tonDefinition, solDefinition] as ChainDefinition[]) {
  test(`${definition.name}: the signer's networks, chain ids and native coin are the chain package's`, (t) => {
    const own = ACCOUNT_CHAINS[definition.id]!;
    t.truthy(own);
    const networks = [definition.networks.mainnet, ...definition.networks.testnets];
    t.deepEqual(Object.keys(own.networks).sort(), networks.map((n) => n.id).sort());
    for (const network of networks) {
      const mine = own.networks[network.id]!;
      t.is(mine.kind, network.kind, network.id);
      t.is(mine.evmChainId, network.evmChainId, network.id);
      if (own.family === 'ton') t.is(mine.tonGlobalId, TON_GLOBAL_ID[network.kind]);
    }
    // The token contracts (jetton masters on TON): every coin with contracts, and nothing more.
    const tokens = Object.fromEntries(definition.coins.filter((c) => c.contracts !== undefined).map((c) => [c.id, c.contracts]));
    t.deepEqual(own.tokens, tokens);
    const native = definition.coins[0]!;
    t.is(own.native.id, native.id);
    t.is(own.native.decimals, native.decimals);
    const coinType = { evm: 60, tron: 195, ton: 607, sol: 501 }[own.family];
    t.is(definition.accountPath.mainnet, `m/44'/${coinType}'/0'`);
    t.is(definition.accountPath.testnet, `m/44'/${coinType}'/0'`);
  });
}
