/**
 * An Esplora provider that REPLAYS RECORDED REAL answers of the BTC chain package
 * (chains/btc/test/fixtures/README.md says where each comes from), for the quorum's operator
 * surfaces (issue 40): testnet3 block 1259783 `00000000004e1506…df8c` (its `/block-height/1259783`
 * hash, its `/block/:hash` header and its `/block/:hash/txs/0` page), whose transaction
 * `9fca06b2…df3ac` pays 1,000,000 sats (output 0) to `tb1q6rz28…cpvkl`, receive address 0 of the
 * published "abandon … about" test key every test project registers, and 24,099,800 sats
 * (output 1) to `tb1qr6ch6…zwna`, an address of no project.
 *
 * Built, not recorded: the tip height (`/blocks/tip/height`, a bare number as Esplora answers it)
 * is set by the test, an unknown height answers Esplora's 404 `Block not found`, and the
 * per-address mempool answers `[]`. A lying provider serves the recorded page with one output's
 * script and address rewritten ({@link pageWithOutputTo}), nothing else. (The same replay as the
 * quorum tests' `quorum-esplora.test.ts`.)
 *
 * The recorded block is from 21 January 2018 and the matcher gives an invoice only receipts that
 * existed after it was created: tests date their invoices' creation back to {@link BEFORE_BLOCK}.
 */
import { readFileSync } from 'node:fs';
import { Receiver, type ReceivedRequest, type Reply } from '@gw/testing';

const recorded = (name: string): string => readFileSync(new URL(`../../../chains/btc/test/fixtures/${name}`, import.meta.url), 'utf8');
export const HEIGHT = 1259783;
export const HASH = recorded('testnet-block-height-1259783.txt').trim();
const BLOCK = recorded('testnet-block-1259783.json');
const PAGE = recorded('testnet-block-1259783-txs-0.json');
export const TXID = '9fca06b2a6469d401f33ef86d29ea4cdd832c35e6384f5df663e9fd4a95df3ac';
/** The address output 1 pays as recorded: no project's. */
export const OTHER = 'tb1qr6ch6nwvgrwvz5y3t9l9xe6r3me7dmkpd4zwna';
/** Before the recorded block's time (2018-01-21T10:35:41Z). */
export const BEFORE_BLOCK = '2018-01-21T00:00:00Z';

/** The 20-byte key hash of a P2WPKH `tb1q…` address (BIP173 bech32: the 5-bit groups after the version, regrouped in bytes). */
function keyHashOf(address: string): string {
  const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
  const groups = [...address.slice(address.lastIndexOf('1') + 1, -6)].map((c) => CHARSET.indexOf(c)).slice(1);
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const group of groups) {
    value = (value << 5) | group;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  if (bytes.length !== 20) throw new Error(`${address} is not a P2WPKH address`);
  return Buffer.from(bytes).toString('hex');
}

/** The recorded page with output `vout` paying `address` (its script and address rewritten, nothing else). */
export function pageWithOutputTo(vout: number, address: string): string {
  const page = JSON.parse(PAGE) as { vout: { scriptpubkey: string; scriptpubkey_asm: string; scriptpubkey_address: string }[] }[];
  const output = page[0]!.vout[vout]!;
  output.scriptpubkey = `0014${keyHashOf(address)}`;
  output.scriptpubkey_asm = `OP_0 OP_PUSHBYTES_20 ${keyHashOf(address)}`;
  output.scriptpubkey_address = address;
  return JSON.stringify(page);
}

/** One Esplora provider replaying the recorded block 1259783; `tip` and `page` may change during a test. */
export class EsploraReplay {
  tip = HEIGHT;
  page = PAGE;
  private constructor(readonly server: Receiver) {}

  static async start(options: { tip?: number; page?: string } = {}): Promise<EsploraReplay> {
    const replay = new EsploraReplay(await Receiver.start());
    if (options.tip !== undefined) replay.tip = options.tip;
    if (options.page !== undefined) replay.page = options.page;
    replay.server.reply = (request) => replay.answer(request);
    return replay;
  }

  get url(): string {
    return this.server.url;
  }

  private answer(request: ReceivedRequest): Reply {
    const path = request.path.split('?')[0]!;
    if (path === '/blocks/tip/height') return { status: 200, body: String(this.tip) };
    if (path === `/block-height/${HEIGHT}` && this.tip >= HEIGHT) return { status: 200, body: HASH };
    if (path.startsWith('/block-height/')) return { status: 404, body: 'Block not found' };
    if (path === `/block/${HASH}`) return { status: 200, body: BLOCK };
    if (path === `/block/${HASH}/txs/0`) return { status: 200, body: this.page };
    if (/^\/address\/[a-z0-9]+\/txs\/mempool$/.test(path)) return { status: 200, body: '[]' };
    return { status: 404, body: 'unrecorded' };
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
