import { tronAddressFromHex } from '@gw/chain-tron';
import { fixtureJson, fixtureText, type ProviderReplay } from './recorded-scan.js';
import { jsonAnswer, type ReplayHandler } from '@gw/kernel/testing';

/**
 * The java-tron full-node HTTP API (TronGrid, publicnode) replayed from chains/tron/test/fixtures
 * (its README says what each answer is and which were built): `POST /wallet/getnowblock`,
 * `/walletsolidity/getnowblock`, `/wallet/getblockbynum` and `/wallet/gettransactioninfobyblocknum`.
 * The recordings are TRON mainnet's; the test networks' providers are served the same answers (a
 * TRON address does not depend on the network, and no Shasta or Nile block was found recorded).
 */

/** Heights whose block and transaction infos the fixtures hold. */
const BLOCKS: Readonly<Record<number, { block: string; infos: string }>> = {
  30864544: { block: 'getblockbynum-30864544.json', infos: 'gettransactioninfobyblocknum-30864544.json' },
  30864600: { block: 'getblockbynum-30864600.json', infos: 'gettransactioninfobyblocknum-30864600.json' },
  47964392: { block: 'getnowblock-47964392.json', infos: 'gettransactioninfobyblocknum-47964392.json' },
};

/** The replay of TRON's recorded answers; `network` only names the provider's network. */
export function tronReplay(network: string): ProviderReplay {
  const handler: ReplayHandler = ({ path, body }) => {
    const num = body ? (JSON.parse(body) as { num?: number }).num : undefined;
    const known = num === undefined ? undefined : BLOCKS[num];
    switch (path) {
      case '/wallet/getnowblock':
        return jsonAnswer(fixtureText('tron', 'getnowblock-47964392.json'));
      case '/walletsolidity/getnowblock':
        // No recording of the solidity API: as the watcher tests do, the older recorded block stands for the solidified one.
        return jsonAnswer(fixtureText('tron', 'getblockbynum-30864544.json'));
      case '/wallet/getblockbynum':
        // java-tron answers `{}` for a height it does not have.
        return jsonAnswer(known ? fixtureText('tron', known.block) : '{}');
      case '/wallet/gettransactioninfobyblocknum':
        return jsonAnswer(known ? fixtureText('tron', known.infos) : '{}');
      default:
        return jsonAnswer({ Error: `unrecorded ${path}` }, 404);
    }
  };
  const block = fixtureJson<{
    blockID: string;
    transactions: { txID: string; raw_data: { contract: { parameter: { value: { amount: number; to_address: string } } }[] } }[];
  }>('tron', 'getblockbynum-30864544.json');
  const tx = block.transactions[0]!;
  const { amount, to_address } = tx.raw_data.contract[0]!.parameter.value;
  const to = tronAddressFromHex(`0x${to_address.slice(2)}`);
  return {
    api: 'java-tron',
    recordings: network === 'tron' ? 'TRON blocks 30864544 and 47964392' : 'TRON mainnet blocks 30864544 and 47964392 (no test-network recording)',
    handler,
    scan: {
      headHeight: 47964392,
      height: 30864544,
      hash: block.blockID,
      watched: [to],
      transfers: [{ coin: 'trx', txHash: tx.txID, outputIndex: 0, toAddress: to, amountUnits: BigInt(amount) }],
    },
  };
}
