/**
 * An Esplora provider that REPLAYS RECORDED REAL answers of the BTC chain package (its Esplora
 * replay, `@gw/chain-btc/testing`; chains/btc/test/fixtures/README.md says where each comes from),
 * for the quorum tests and the quorum's operator surfaces (issue 40): testnet3 block 1259783
 * `00000000004e1506…df8c` (its `/block-height/1259783` hash, its `/block/:hash` header and its
 * `/block/:hash/txs/0` page), whose transaction `9fca06b2…df3ac` pays 1,000,000 sats (output 0) to
 * `tb1q6rz28…cpvkl`, receive address 0 of the published "abandon … about" test key every test
 * project registers, and 24,099,800 sats (output 1) to `tb1qr6ch6…zwna`, an address of no project.
 *
 * Built, not recorded: the tip height (`/blocks/tip/height`, a bare number as Esplora answers it)
 * is set by the test (below the block, the provider has no hash at its height yet), an unknown
 * height answers Esplora's 404 `Block not found`, `GET /tx/9fca06b2…` answers the page's
 * transaction object as it is (Esplora's single-transaction answer has the same fields, `status`
 * naming the block), and the per-address mempool (`/address/:address/txs/mempool`) answers `[]`.
 * A lying provider serves the recorded page with one output's script and address rewritten
 * ({@link pageWithOutputTo}), nothing else.
 *
 * The recorded block is from 21 January 2018 and the matcher gives an invoice only receipts that
 * existed after it was created: tests date their invoices' creation back to {@link BEFORE_BLOCK}.
 */
import { signedFetch, startReplayServer, type ReplayRequest, type ReplayServer, type TestKernel } from '@gw/kernel/testing';
import type { TestProject } from '@gw/plugin-webhooks/testing';
import { esploraHandler, pageWithOutputTo as rewrittenPage, recordedEsploraAnswers, TESTNET_1259783 } from '@gw/chain-btc/testing';

export const HEIGHT: number = TESTNET_1259783.height;
export const HASH = TESTNET_1259783.hash;
export const TXID = TESTNET_1259783.txid;
/** The address output 1 pays as recorded: no project's. */
export const OTHER = TESTNET_1259783.other;
/** The block's one page as recorded. */
export const PAGE: string = TESTNET_1259783.page;
/** Before the recorded block's time (2018-01-21T10:35:41Z). */
export const BEFORE_BLOCK = '2018-01-21T00:00:00Z';

/** The recorded page with output `vout` paying `address` (its script and address rewritten, nothing else). */
export function pageWithOutputTo(vout: number, address: string): string {
  return rewrittenPage(PAGE, vout, address);
}

/**
 * An invoice of `amount` BTC created over the API for `project`, its creation then dated back to
 * {@link BEFORE_BLOCK} so that the recorded block's payments may go to it (the one row written by
 * hand).
 */
export async function invoiceBeforeBlock(gw: TestKernel, project: TestProject, amount: string): Promise<{ id: string; address: string }> {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `inv-${Math.random().toString(36).slice(2)}`, coin: 'btc', amount_crypto: amount },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  await gw.kernel.cradle.db('invoices_invoices').where({ id: created.body.id }).update({ created_at: BEFORE_BLOCK });
  return created.body;
}

/** One Esplora provider replaying the recorded block 1259783; `tip` and `page` may change during a test. */
export class EsploraReplay {
  tip = HEIGHT;
  page = PAGE;
  private readonly recorded = recordedEsploraAnswers('testnet');
  private server!: ReplayServer;

  static async start(options: { readonly tip?: number | undefined; readonly page?: string | undefined } = {}): Promise<EsploraReplay> {
    const replay = new EsploraReplay();
    if (options.tip !== undefined) replay.tip = options.tip;
    if (options.page !== undefined) replay.page = options.page;
    replay.server = await startReplayServer('', (request) => esploraHandler(replay.answers())(request));
    return replay;
  }

  get url(): string {
    return this.server.url;
  }

  /** Requests whose path starts with `prefix` (all with none). */
  asked(prefix = '/'): ReplayRequest[] {
    return this.server.requests.filter((r) => r.path.startsWith(prefix));
  }

  /** What it answers now, by path: the recordings with this provider's tip and page. */
  private answers(): Record<string, string> {
    const answers: Record<string, string> = {
      ...this.recorded,
      '/blocks/tip/height': String(this.tip),
      [`/block/${HASH}/txs/0`]: this.page,
      // The page's one transaction, as `GET /tx/:txid` answers it (its `status` names the block).
      [`/tx/${TXID}`]: JSON.stringify((JSON.parse(this.page) as unknown[])[0]),
    };
    if (this.tip < HEIGHT) delete answers[`/block-height/${HEIGHT}`];
    return answers;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
