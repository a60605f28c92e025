import test from 'ava';
import { adaDefinition } from '@gw/chain-ada';
import { bitcoinParams, btcDefinition } from '@gw/chain-btc';
import { litecoinParams, ltcDefinition } from '@gw/chain-ltc';
import { ADA, BTC, LTC } from './chains.js';

// The signer keeps its own copy of the chains' parameters so that it depends on no chain package;
// here they are compared with the chain packages' (the gateway's) values.
for (const [chain, params, definition] of [
  [BTC, bitcoinParams, btcDefinition],
  [LTC, litecoinParams, ltcDefinition],
] as const) {
  test(`${chain.name}: the signer's networks, coin types and message signing are the chain package's`, (t) => {
    const networks = [definition.networks.mainnet, ...definition.networks.testnets];
    t.deepEqual(Object.keys(chain.networks).sort(), networks.map((n) => n.id).sort());
    for (const network of networks) {
      const own = chain.networks[network.id]!;
      t.is(own.kind, network.kind, network.id);
      const theirs = params.networks[network.id]!;
      t.deepEqual(
        {
          bech32: own.params.bech32,
          pubKeyHash: own.params.pubKeyHash,
          scriptHash: own.params.scriptHash,
          wif: own.params.wif,
          public: own.params.bip32.public,
        },
        { bech32: theirs.bech32, pubKeyHash: theirs.pubKeyHash, scriptHash: theirs.scriptHash, wif: theirs.wif, public: theirs.bip32.public },
        network.id,
      );
    }
    t.deepEqual(chain.coinType, params.coinType);
    t.deepEqual(chain.messageSigning, params.messageSigning);
    t.is(definition.accountPath.mainnet, `m/84'/${chain.coinType.mainnet}'/0'`);
    t.is(definition.accountPath.testnet, `m/84'/${chain.coinType.testnet}'/0'`);
    t.is(chain.decimals, definition.coins[0]!.decimals);
  });
}

test("Cardano: the signer's networks are the chain package's", (t) => {
  const networks = [adaDefinition.networks.mainnet, ...adaDefinition.networks.testnets];
  t.deepEqual(Object.keys(ADA.networks).sort(), networks.map((n) => n.id).sort());
  for (const network of networks) t.is(ADA.networks[network.id]!.kind, network.kind);
  t.is(adaDefinition.accountPath.mainnet, "m/1852'/1815'/0'");
  t.is(ADA.decimals, adaDefinition.coins[0]!.decimals);
});
