import { readFileSync } from 'node:fs';
import * as bitcoin from 'bitcoinjs-lib';
import { jsonAnswer, textAnswer, type ReplayHandler } from '@gw/chain-api/testing';

/**
 * Esplora REST (mempool.space, blockstream.info) replayed from the answers recorded in
 * chains/btc/test/fixtures (its README says where each was recorded and which were built from
 * another endpoint's real data): the one replay of the API that every test standing a local
 * server in for an Esplora provider serves (this package's watcher tests, the watchers plugin's
 * quorum and budget tests, the public-provider replay of `@gw/testing`), through the chain
 * contract's `startReplayServer`.
 */

/** The text of one file of chains/btc/test/fixtures. */
export function btcFixture(name: string): string {
  return readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8');
}

/** Mainnet genesis block. */
export const GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
/** Mainnet block 828669 (27 transactions: two pages). */
export const MAIN_828669 = '000000000000000000000cde53a239563c5a947d325c526bf140c7663b989b56';
/** The address whose mempool list is recorded, and its one unconfirmed transaction. */
export const MEMPOOL_ADDRESS = '3Gw73hEempkoTG4Y3tLgvzxcQE2K9P6KL1';
export const MEMPOOL_TX = '5f753368e7eeaa3e8629ce3f826fe8dfac1fd628ccd6651c87fe2ead18fd8249';
/** The recorded `GET /tx/:txid` answer (in block 833101). */
export const TX_833101 = '0dbf4436b3493c08b85f11755f672f2b40beddb8f2b65c6bb1e68074c85b53f3';

/**
 * Testnet3 block 1259783 (built from its recorded raw header and raw transaction, trimmed to that
 * one transaction: see the README): `txid` pays 1,000,000 sats (output 0) to receive address 0 of
 * the published "abandon … about" test key, `tb1q6rz28…cpvkl`, and 24,099,800 sats (output 1) to
 * `other`, an address no test registers.
 */
export const TESTNET_1259783 = {
  height: 1259783,
  hash: '00000000004e150651daa12a6bc6c144505a1a93bf158b8aef1da36c1893df8c',
  txid: '9fca06b2a6469d401f33ef86d29ea4cdd832c35e6384f5df663e9fd4a95df3ac',
  other: 'tb1qr6ch6nwvgrwvz5y3t9l9xe6r3me7dmkpd4zwna',
  /** Its one page (`/block/:hash/txs/0`) as recorded. */
  page: btcFixture('testnet-block-1259783-txs-0.json'),
} as const;

/**
 * Path → recorded answer of the mainnet or testnet recordings, a new table at each call (a test may
 * add or remove an answer while its servers run). The testnet recordings hold no tip: a test or
 * replay says which tip it serves.
 */
export function recordedEsploraAnswers(network: 'mainnet' | 'testnet'): Record<string, string> {
  if (network === 'testnet') {
    return {
      [`/block-height/${TESTNET_1259783.height}`]: btcFixture('testnet-block-height-1259783.txt'),
      [`/block/${TESTNET_1259783.hash}`]: btcFixture('testnet-block-1259783.json'),
      [`/block/${TESTNET_1259783.hash}/txs/0`]: TESTNET_1259783.page,
      // The transaction's raw hex as recorded (what a plan spending its outputs carries as the previous transaction).
      [`/tx/${TESTNET_1259783.txid}/hex`]: btcFixture('testnet-tx-9fca06b2-hex.txt'),
    };
  }
  return {
    '/blocks/tip/height': btcFixture('mainnet-tip-height.txt'),
    '/block-height/615615': btcFixture('mainnet-block-height-615615.txt'),
    '/block-height/0': btcFixture('mainnet-block-height-0.txt'),
    [`/block/${GENESIS}`]: btcFixture('mainnet-block-0.json'),
    [`/block/${GENESIS}/txs/0`]: btcFixture('mainnet-block-0-txs-0.json'),
    '/block-height/828669': btcFixture('mainnet-block-height-828669.txt'),
    [`/block/${MAIN_828669}`]: btcFixture('mainnet-block-828669.json'),
    // Paging: block 828669 has 27 transactions, so two pages, served from real transactions of other blocks (see the README).
    [`/block/${MAIN_828669}/txs/0`]: `[${btcFixture('mainnet-tx-0dbf4436.json')}]`,
    [`/block/${MAIN_828669}/txs/25`]: btcFixture('mainnet-block-0-txs-0.json'),
    [`/address/${MEMPOOL_ADDRESS}/txs/mempool`]: btcFixture('mainnet-address-3Gw73h-txs-mempool.json'),
    '/address/bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c/txs/mempool': '[]',
    // Recorded `GET /tx/:txid` (in block 833101).
    [`/tx/${TX_833101}`]: btcFixture('mainnet-tx-0dbf4436.json'),
    // The recorded unconfirmed transaction of the mempool answer, as `GET /tx/:txid` answers it (same object).
    [`/tx/${MEMPOOL_TX}`]: JSON.stringify((JSON.parse(btcFixture('mainnet-address-3Gw73h-txs-mempool.json')) as unknown[])[0]),
  };
}

/**
 * Answers Esplora requests from `answers` (path → body, read at each request): JSON bodies as
 * `application/json`, heights and hashes as `text/plain`; the mempool list of any other address
 * is `[]` (built: Esplora's answer for an address with nothing unconfirmed); anything else is
 * Esplora's 404 `Block not found`.
 */
export function esploraHandler(answers: Readonly<Record<string, string>>): ReplayHandler {
  return ({ path }) => {
    const body = answers[path];
    if (body !== undefined) return body.startsWith('[') || body.startsWith('{') ? jsonAnswer(body) : textAnswer(body);
    if (/^\/address\/[^/]+\/txs\/mempool$/.test(path)) return jsonAnswer('[]');
    return textAnswer('Block not found', 404);
  };
}

/**
 * A block page (an Esplora transaction list) whose first transaction's output `vout` pays the
 * P2WPKH testnet `address` instead: its `scriptpubkey`, `scriptpubkey_asm` and
 * `scriptpubkey_address` rewritten, nothing else (what a lying provider serves).
 */
export function pageWithOutputTo(page: string, vout: number, address: string): string {
  const script = Buffer.from(bitcoin.address.toOutputScript(address, bitcoin.networks.testnet)).toString('hex');
  if (!/^0014[0-9a-f]{40}$/.test(script)) throw new Error(`${address} is not a P2WPKH address`);
  const transactions = JSON.parse(page) as { vout: { scriptpubkey: string; scriptpubkey_asm: string; scriptpubkey_address: string }[] }[];
  const output = transactions[0]!.vout[vout]!;
  output.scriptpubkey = script;
  output.scriptpubkey_asm = `OP_0 OP_PUSHBYTES_20 ${script.slice(4)}`;
  output.scriptpubkey_address = address;
  return JSON.stringify(transactions);
}
