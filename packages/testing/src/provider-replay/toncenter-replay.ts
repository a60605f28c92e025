import { formatTonAddress } from '@gw/chain-ton';
import { Address } from '@ton/core';
import { fixtureJson, fixtureText, type ProviderReplay } from './recorded-scan.js';
import { jsonAnswer, type ReplayHandler } from '@gw/kernel/testing';

/**
 * toncenter API v3 replayed from chains/ton/test/fixtures (its README says where each answer was
 * recorded and what is built): `/api/v3/masterchainInfo`, `/api/v3/blocks` of a masterchain seqno,
 * `/api/v3/transactionsByMasterchainBlock`. Mainnet: masterchain block 51319006 with its 18
 * transactions as toncenter answered them. Testnet: one recorded transaction of masterchain block
 * 33013054 stands for that block's list.
 */

/** An all-zero 32-byte hash in toncenter's base64: the root hash of a block no recording holds. */
const UNRECORDED_HASH = Buffer.alloc(32).toString('base64');

interface Recorded {
  readonly folder: 'mainnet' | 'testnet';
  readonly info: string;
  readonly transactions: string;
  /** The masterchain block the transactions belong to. */
  readonly seqno: number;
  /** Its `gen_utime`, as far as the recordings tell it (see the README). */
  readonly genUtime: number;
  /** The transaction a scan reports, by its hash's first characters. */
  readonly paid: string;
}

const MAINNET: Recorded = {
  folder: 'mainnet',
  info: 'masterchain-info-51317643.json',
  transactions: 'transactions-by-masterchain-block-51319006.json',
  seqno: 51319006,
  // The `now` of the block's own tick-tock transactions: the masterchain block's generation time.
  genUtime: 1756245539,
  paid: 'i39bgWzp',
};

const TESTNET: Recorded = {
  folder: 'testnet',
  info: 'masterchain-info-21082664.json',
  transactions: 'transactions-L-DSNQ43.json',
  seqno: 33013054,
  // The transaction's `now`; the masterchain block that commits it is not recorded.
  genUtime: 1751972976,
  paid: 'L/DSNQ43',
};

interface RecordedTransaction {
  readonly hash: string;
  readonly mc_block_seqno: number;
  readonly in_msg: { readonly destination: string; readonly value: string };
}

interface RecordedBlock {
  readonly seqno: number;
  readonly root_hash: string;
}

/** The replay of toncenter's recorded answers for `network` (`ton` or `ton-testnet`). */
export function toncenterReplay(network: string): ProviderReplay {
  const recorded = network === 'ton' ? MAINNET : TESTNET;
  const kind = network === 'ton' ? 'mainnet' : 'testnet';
  const infoText = fixtureText('ton', `${recorded.folder}/${recorded.info}`);
  const info = JSON.parse(infoText) as { last: RecordedBlock; first: RecordedBlock };
  const list = fixtureJson<{ transactions: RecordedTransaction[] }>('ton', `${recorded.folder}/${recorded.transactions}`);

  /** `/api/v3/blocks` answers: the block objects masterchainInfo recorded, and the scanned block and its parent built (see the README). */
  const blocks = new Map<number, unknown>([
    [info.last.seqno, info.last],
    [info.first.seqno, info.first],
    [recorded.seqno, builtBlock(recorded.seqno, recorded.genUtime)],
    [recorded.seqno - 1, builtBlock(recorded.seqno - 1, 0)],
  ]);

  const handler: ReplayHandler = ({ path }) => {
    const url = new URL(path, 'http://replay');
    const seqno = Number(url.searchParams.get('seqno'));
    switch (url.pathname) {
      case '/api/v3/masterchainInfo':
        return jsonAnswer(infoText);
      case '/api/v3/blocks': {
        const block = url.searchParams.get('workchain') === '-1' ? blocks.get(seqno) : undefined;
        return jsonAnswer({ blocks: block === undefined ? [] : [block] });
      }
      case '/api/v3/transactionsByMasterchainBlock': {
        const offset = Number(url.searchParams.get('offset') ?? '0');
        const limit = Number(url.searchParams.get('limit') ?? '128');
        const transactions = seqno === recorded.seqno ? list.transactions.slice(offset, offset + limit) : [];
        return jsonAnswer({ ...list, transactions });
      }
      default:
        return jsonAnswer({ error: `unrecorded ${url.pathname}` }, 404);
    }
  };

  const paid = list.transactions.find((tx) => tx.hash.startsWith(recorded.paid))!;
  const to = formatTonAddress(Address.parseRaw(paid.in_msg.destination), kind);
  return {
    api: 'toncenter-v3',
    recordings: network === 'ton' ? 'TON masterchain block 51319006 (Gem Wallet test data)' : 'one TON testnet transaction of masterchain block 33013054',
    handler,
    scan: {
      headHeight: info.last.seqno,
      height: recorded.seqno,
      hash: UNRECORDED_HASH,
      watched: [to],
      transfers: [
        {
          coin: 'ton',
          txHash: paid.hash,
          outputIndex: 0,
          toAddress: to,
          amountUnits: BigInt(paid.in_msg.value),
          ...(network === 'ton' ? { memo: 'd81c5544-1b17-419c-a638-452432486ed5' } : {}),
        },
      ],
    },
  };
}

/** A masterchain block of toncenter's `Block` schema with only what the recordings tell: its seqno and (where known) its time. */
function builtBlock(seqno: number, genUtime: number): unknown {
  return {
    workchain: -1,
    shard: '8000000000000000',
    seqno,
    root_hash: UNRECORDED_HASH,
    file_hash: UNRECORDED_HASH,
    gen_utime: String(genUtime),
  };
}
