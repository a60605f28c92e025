import { esploraHandler, GENESIS, MEMPOOL_ADDRESS, recordedEsploraAnswers, TESTNET_1259783 } from '@gw/chain-btc/testing';
import { fixtureJson, fixtureText, type ProviderReplay, type RecordedScan } from './recorded-scan.js';

/**
 * Esplora REST (mempool.space, blockstream.info, litecoinspace.org) replayed from recorded answers:
 * chains/btc/test/fixtures and chains/ltc/test/fixtures (their READMEs say where each answer was
 * recorded and what was built), answered by the BTC chain package's Esplora replay
 * (`esploraHandler` of `@gw/chain-btc/testing`). Paths below the provider's base path:
 * `/blocks/tip/height`, `/block-height/:h`, `/block/:hash`, `/block/:hash/txs/:start`,
 * `/address/:a/txs/mempool`, `/tx/:txid`.
 */

/** Bitcoin Core's `getblock <hash> 2`, as recorded for Litecoin block 2383209 (the fields used here). */
interface CoreBlock {
  readonly hash: string;
  readonly height: number;
  readonly confirmations: number;
  readonly version: number;
  readonly merkleroot: string;
  readonly time: number;
  readonly nonce: number;
  readonly bits: string;
  readonly nTx: number;
  readonly previousblockhash: string;
  readonly tx: readonly {
    readonly txid: string;
    readonly version: number;
    readonly locktime: number;
    readonly size: number;
    readonly weight: number;
    readonly vin: readonly { readonly coinbase?: string; readonly txid?: string; readonly vout?: number; readonly sequence: number }[];
    readonly vout: readonly {
      readonly value: number;
      readonly scriptPubKey: { readonly hex: string; readonly type: string; readonly addresses?: readonly string[] };
    }[];
  }[];
}

/** The replay of the Esplora answers recorded for `chain`'s `network` (btc: bitcoin, signet, testnet; ltc: litecoin, testnet). */
export function esploraReplay(chain: string, network: string): ProviderReplay {
  if (chain === 'btc' && network === 'bitcoin') return bitcoinMainnet();
  if (chain === 'btc' && (network === 'signet' || network === 'testnet')) return bitcoinTestnet(network);
  if (chain === 'ltc' && (network === 'litecoin' || network === 'testnet')) return litecoin(network);
  throw new Error(`no recorded Esplora answers for ${chain}/${network}`);
}

/** Bitcoin mainnet: the recorded answers; the block scanned is the genesis block, recorded whole (one page, the coinbase). */
function bitcoinMainnet(): ProviderReplay {
  // The address whose mempool is recorded is watched too: the genesis block pays it nothing.
  const scan: RecordedScan = {
    headHeight: Number(fixtureText('btc', 'mainnet-tip-height.txt')),
    height: 0,
    hash: GENESIS,
    watched: [MEMPOOL_ADDRESS],
    transfers: [],
  };
  return {
    api: 'esplora',
    recordings: 'Bitcoin mainnet tip and genesis block',
    scan,
    handler: esploraHandler(recordedEsploraAnswers('mainnet')),
  };
}

/**
 * Signet and testnet: each network's recorded tip; the block scanned is testnet3 block 1259783 for
 * both (the only test-network block whose transaction is recorded; signet addresses have the same
 * `tb1` form, so a signet watcher reads it as it would a signet block).
 */
function bitcoinTestnet(network: 'signet' | 'testnet'): ProviderReplay {
  const tip = fixtureText('btc', `${network}-tip-height.txt`);
  const [tx] = fixtureJson<{ txid: string; vout: { value: number; scriptpubkey_address: string }[] }[]>('btc', 'testnet-block-1259783-txs-0.json');
  const paid = tx!.vout[0]!;
  return {
    api: 'esplora',
    recordings: `Bitcoin ${network} tip; testnet3 block 1259783`,
    scan: {
      headHeight: Number(tip),
      height: TESTNET_1259783.height,
      hash: TESTNET_1259783.hash,
      watched: [paid.scriptpubkey_address],
      transfers: [{ coin: 'btc', txHash: tx!.txid, outputIndex: 0, toAddress: paid.scriptpubkey_address, amountUnits: BigInt(paid.value) }],
    },
    handler: esploraHandler({ ...recordedEsploraAnswers('testnet'), '/blocks/tip/height': tip }),
  };
}

/** Satoshis of a Core amount (a JSON number of LTC with at most 8 decimals), exactly. */
function satoshis(value: number): number {
  const [whole, fraction = ''] = value.toFixed(8).split('.');
  return Number(whole) * 100_000_000 + Number(fraction.padEnd(8, '0'));
}

/**
 * Litecoin: block 2383209 as Litecoin Core recorded it (`getblock <hash> 2`), turned into Esplora's
 * answers here (see chains/ltc/test/fixtures/README.md): the block header, and its 8 transactions
 * as one `/txs/0` page. The tip is the recording's own (height + confirmations - 1). On testnet no
 * block is recorded: the same block is served without `scriptpubkey_address` (so the testnet
 * watcher derives each output's address from its script under testnet4 parameters).
 */
function litecoin(network: 'litecoin' | 'testnet'): ProviderReplay {
  const core = fixtureJson<CoreBlock>('ltc', 'mainnet-block-2383209-core.json');
  const withAddresses = network === 'litecoin';
  const block = {
    id: core.hash,
    height: core.height,
    version: core.version,
    timestamp: core.time,
    tx_count: core.nTx,
    merkle_root: core.merkleroot,
    previousblockhash: core.previousblockhash,
    nonce: core.nonce,
    bits: Number.parseInt(core.bits, 16),
  };
  const txs = core.tx.map((tx) => ({
    txid: tx.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.vin.map((input) =>
      input.coinbase !== undefined
        ? { txid: '0'.repeat(64), vout: 0xffffffff, is_coinbase: true, scriptsig: input.coinbase, sequence: input.sequence }
        : { txid: input.txid, vout: input.vout, is_coinbase: false, sequence: input.sequence },
    ),
    vout: tx.vout.map((output) => ({
      scriptpubkey: output.scriptPubKey.hex,
      scriptpubkey_type: output.scriptPubKey.type,
      ...(withAddresses && output.scriptPubKey.addresses?.[0] !== undefined ? { scriptpubkey_address: output.scriptPubKey.addresses[0] } : {}),
      value: satoshis(output.value),
    })),
    size: tx.size,
    weight: tx.weight,
  }));
  // Output 0 of efae3cce…: 163,365 litoshi to a P2WPKH script (ltc1qrqlkq… on mainnet; the same script under testnet4's `tltc`).
  const paidTx = core.tx.find((tx) => tx.txid.startsWith('efae3cce'))!;
  const toAddress = withAddresses ? 'ltc1qrqlkqqa7d9kpvxdcpd6ycja8uerskwxkhfy500' : 'tltc1qrqlkqqa7d9kpvxdcpd6ycja8uerskwxkqm8au9';
  const tip = String(core.height + core.confirmations - 1);
  return {
    api: 'esplora',
    recordings: withAddresses
      ? 'Litecoin block 2383209 (recorded by Litecoin Core)'
      : 'Litecoin mainnet block 2383209 without addresses (no testnet recording)',
    scan: {
      headHeight: Number(tip),
      height: core.height,
      hash: core.hash,
      watched: [toAddress],
      transfers: [{ coin: 'ltc', txHash: paidTx.txid, outputIndex: 0, toAddress, amountUnits: BigInt(satoshis(paidTx.vout[0]!.value)) }],
    },
    handler: esploraHandler({
      '/blocks/tip/height': tip,
      [`/block-height/${core.height}`]: core.hash,
      [`/block/${core.hash}`]: JSON.stringify(block),
      [`/block/${core.hash}/txs/0`]: JSON.stringify(txs),
    }),
  };
}
