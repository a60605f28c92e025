/**
 * Every default public provider of every network of every chain (`NetworkDefinition.publicProviders`,
 * issue 40), read through its chain's watcher. The public providers cannot be reached from here:
 * each one is stood in for by a local server that REPLAYS RECORDED REAL ANSWERS of the API it speaks
 * (Esplora, EVM JSON-RPC, java-tron HTTP, toncenter v3, Koios; @gw/testing `provider-replay`, the
 * fixture READMEs of each chain say where every answer was recorded and what was built or trimmed),
 * mounted at the provider's own URL path (`https://mempool.space/signet/api` →
 * `http://127.0.0.1:<port>/signet/api`). The watcher is built with that one endpoint, as the watchers
 * plugin builds it for a public provider, then reads the tip, a recorded block, and the block's hash.
 */
import test from 'ava';
import { chains } from '@gw/app-gateway';
import type { ChainModule, NetworkDefinition, ObservedTransfer, PublicProvider } from '@gw/kernel';
import { watchedSet } from '@gw/kernel/testing';
import { startReplayedProvider } from '@gw/testing';

/** Networks that run on the operator's own machine: no public provider can serve them (Solana's local validator: `localnet`). */
const LOCAL_NETWORKS = new Set(['regtest', 'localnet']);

/**
 * Chains whose public providers have no recording yet, with the reason. Solana (issue 43) was built
 * on a machine without internet, so no real answer of the Solana Foundation's endpoints could be
 * recorded; its watcher is tested against a local ledger (LiteSVM behind the same JSON-RPC calls,
 * chains/sol/test/litesvm-rpc.ts) instead. Listed here so that the gap is visible, not silent.
 */
const UNRECORDED = new Map([['sol', 'no recording of the Solana Foundation endpoints yet (built offline; chains/sol/README.md, Tests)']]);

const networksOf = (module: ChainModule): NetworkDefinition[] => [module.definition.networks.mainnet, ...module.definition.networks.testnets];

test('every network of every chain but the local ones lists public providers with a documented limit', (t) => {
  for (const module of chains) {
    for (const network of networksOf(module)) {
      if (LOCAL_NETWORKS.has(network.id)) continue;
      const providers = network.publicProviders ?? [];
      t.true(providers.length > 0, `${module.definition.id}/${network.id} lists no public provider`);
      for (const provider of providers) {
        t.true(provider.limit.requestsPerSecond > 0, `${module.definition.id}/${network.id} ${provider.name}: no rate`);
        t.true(provider.source.length > 0, `${module.definition.id}/${network.id} ${provider.name}: no source for its limit`);
        t.is(new URL(provider.url).protocol, 'https:', `${module.definition.id}/${network.id} ${provider.name}: ${provider.url}`);
      }
    }
  }
});

const expected = (transfer: ObservedTransfer) => ({
  coin: transfer.coin,
  txHash: transfer.txHash,
  outputIndex: transfer.outputIndex,
  toAddress: transfer.toAddress,
  amountUnits: transfer.amountUnits,
  ...(transfer.memo === undefined ? {} : { memo: transfer.memo }),
});

function declare(module: ChainModule, network: NetworkDefinition, provider: PublicProvider): void {
  const where = `${module.definition.id}/${network.id} ${provider.name} (${provider.url})`;
  test(`answers replayed from recordings: ${where} through its chain's watcher: the tip, a recorded block and its hash`, async (t) => {
    const replayed = await startReplayedProvider(module, network, provider);
    t.teardown(() => replayed.close());
    const { scan } = replayed.replay;
    t.log(`replaying ${replayed.replay.api}: ${replayed.replay.recordings}`);
    t.is(replayed.endpoint.url, `${new URL(replayed.server.url).origin}${new URL(provider.url).pathname.replace(/\/+$/, '')}`, 'the provider path is kept');

    const head = await replayed.watcher.head();
    t.is(head.height, scan.headHeight);

    const blocks = await replayed.watcher.scan(scan.height, scan.height, watchedSet(scan.watched));
    t.is(blocks.length, 1);
    const [block] = blocks;
    t.is(block!.height, scan.height);
    t.is(block!.hash, scan.hash);
    t.deepEqual(
      block!.transfers.map(expected),
      scan.transfers.map((transfer) => ({ ...transfer })),
    );
    for (const transfer of block!.transfers) {
      t.is(transfer.chain, module.definition.id);
      t.is(transfer.network, network.id);
      t.is(transfer.blockHeight, scan.height);
      t.is(transfer.blockHash, scan.hash);
    }

    t.is(await replayed.watcher.blockHash(scan.height), scan.hash);

    t.true(replayed.server.requests.length > 0);
    t.deepEqual(replayed.server.outside, [], 'every request went to the provider path');
  });
}

for (const module of chains) {
  if (UNRECORDED.has(module.definition.id)) continue;
  for (const network of networksOf(module)) {
    for (const provider of network.publicProviders ?? []) declare(module, network, provider);
  }
}

test('a chain left out of the replays is in the build, lists public providers and says why', (t) => {
  for (const [id, reason] of UNRECORDED) {
    const module = chains.find((m) => m.definition.id === id);
    t.truthy(module, `${id} is in the build`);
    t.true(
      networksOf(module!).some((network) => (network.publicProviders ?? []).length > 0),
      `${id} lists public providers`,
    );
    t.true(reason.length > 0);
  }
});
