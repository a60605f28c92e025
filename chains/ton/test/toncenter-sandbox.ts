/**
 * A toncenter-API-v3-shaped HTTP server backed by an @ton/sandbox blockchain: the transactions it
 * serves are real TVM executions (real wallet and jetton contract code run by the TON emulator),
 * rendered in toncenter v3's JSON (toncenter's v3 OpenAPI: Transaction, TransactionDescr, Message,
 * Block). The sandbox has no masterchain blocks, so `commit()` groups the transactions of the
 * sends given to it into the next masterchain block, whose root hash is synthetic
 * (sha256 of its seqno and transaction hashes).
 *
 * Serves only what the TON watcher and treasury use: `GET /api/v3/masterchainInfo`,
 * `GET /api/v3/blocks`, `GET /api/v3/transactionsByMasterchainBlock`, `POST /api/v3/runGetMethod`,
 * `GET /api/v3/accountStates`, `GET /api/v3/transactions` (by account), `POST /api/v3/message` (an external the wallet does not accept is
 * answered 500 "cannot apply external message", as toncenter does; an accepted one runs at once
 * and its transactions become the next block) and `GET /api/v3/transactionsByMessage`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Address, beginCell, Cell, loadMessage, storeMessage, type Message, type TupleItem } from '@ton/core';
import { Blockchain, type BlockchainTransaction, type SendMessageResult } from '@ton/sandbox';
import { type AccountTreasury, type ChainAdapterDeps, type ChainDefinition, type NetworkDefinition, ProviderPool } from '@gw/chain-api';
import { tonChain, tonDefinition } from '../src/index.js';

const SHARD = '8000000000000000';

/** One synthetic masterchain block. */
export interface SandboxBlock {
  readonly seqno: number;
  readonly rootHash: string;
  readonly genUtime: number;
  readonly transactions: readonly BlockchainTransaction[];
}

/** toncenter's raw address form: workchain, colon, upper-case hex. */
export function rawUpper(address: Address): string {
  return `${address.workChain}:${address.hash.toString('hex').toUpperCase()}`;
}

const statusOf = (status: string): string => ({ uninitialized: 'uninit', 'non-existing': 'nonexist', active: 'active', frozen: 'frozen' })[status] ?? status;

function textComment(body: Cell): { type: 'text_comment'; comment: string } | null {
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32 || s.loadUint(32) !== 0) return null;
    return { type: 'text_comment', comment: s.loadStringTail() };
  } catch {
    return null;
  }
}

function messageJson(message: Message): Record<string, unknown> {
  const { info } = message;
  const body = message.body;
  const op = body.bits.length >= 32 ? body.beginParse().preloadUint(32) : null;
  const content = { hash: body.hash().toString('base64'), body: body.toBoc().toString('base64'), decoded: textComment(body) };
  const common = {
    hash: beginCell().store(storeMessage(message)).endCell().hash().toString('base64'),
    opcode: op === null ? null : `0x${op.toString(16).padStart(8, '0')}`,
    message_content: content,
    init_state: null,
  };
  if (info.type === 'internal') {
    return {
      ...common,
      source: rawUpper(info.src),
      destination: rawUpper(info.dest),
      value: info.value.coins.toString(),
      fwd_fee: info.forwardFee.toString(),
      ihr_fee: info.ihrFee.toString(),
      created_lt: info.createdLt.toString(),
      created_at: String(info.createdAt),
      ihr_disabled: info.ihrDisabled,
      bounce: info.bounce,
      bounced: info.bounced,
      import_fee: null,
    };
  }
  return {
    ...common,
    source: null,
    destination: info.type === 'external-in' ? rawUpper(info.dest) : null,
    value: null,
    fwd_fee: null,
    ihr_fee: null,
    created_lt: info.type === 'external-out' ? info.createdLt.toString() : null,
    created_at: info.type === 'external-out' ? String(info.createdAt) : null,
    ihr_disabled: null,
    bounce: null,
    bounced: null,
    import_fee: info.type === 'external-in' ? info.importFee.toString() : null,
  };
}

function descriptionJson(tx: BlockchainTransaction): Record<string, unknown> {
  const d = tx.description;
  if (d.type !== 'generic') return { type: d.type === 'tick-tock' ? 'tick_tock' : d.type, aborted: false };
  const compute =
    d.computePhase.type === 'skipped'
      ? { skipped: true, reason: d.computePhase.reason.replace('-', '_') }
      : {
          skipped: false,
          success: d.computePhase.success,
          msg_state_used: d.computePhase.messageStateUsed,
          account_activated: d.computePhase.accountActivated,
          gas_fees: d.computePhase.gasFees.toString(),
          gas_used: d.computePhase.gasUsed.toString(),
          gas_limit: d.computePhase.gasLimit.toString(),
          mode: d.computePhase.mode,
          exit_code: d.computePhase.exitCode,
          vm_steps: d.computePhase.vmSteps,
          vm_init_state_hash: Buffer.from(d.computePhase.vmInitStateHash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
          vm_final_state_hash: Buffer.from(d.computePhase.vmFinalStateHash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
        };
  const bounceType = { 'negative-funds': 'negfunds', 'no-funds': 'nofunds', ok: 'ok' } as const;
  return {
    type: 'ord',
    aborted: d.aborted,
    destroyed: d.destroyed,
    credit_first: d.creditFirst,
    ...(d.storagePhase
      ? { storage_ph: { storage_fees_collected: d.storagePhase.storageFeesCollected.toString(), status_change: d.storagePhase.statusChange } }
      : {}),
    ...(d.creditPhase ? { credit_ph: { credit: d.creditPhase.credit.coins.toString() } } : {}),
    compute_ph: compute,
    ...(d.actionPhase
      ? {
          action: {
            success: d.actionPhase.success,
            valid: d.actionPhase.valid,
            no_funds: d.actionPhase.noFunds,
            status_change: d.actionPhase.statusChange,
            result_code: d.actionPhase.resultCode,
            tot_actions: d.actionPhase.totalActions,
            spec_actions: d.actionPhase.specActions,
            skipped_actions: d.actionPhase.skippedActions,
            msgs_created: d.actionPhase.messagesCreated,
          },
        }
      : {}),
    ...(d.bouncePhase ? { bounce: { type: bounceType[d.bouncePhase.type] } } : {}),
  };
}

/** The toncenter v3 JSON of one sandbox transaction. */
export function transactionJson(tx: BlockchainTransaction, mcSeqno: number): Record<string, unknown> {
  const workchain = tx.inMessage && tx.inMessage.info.type !== 'external-out' ? tx.inMessage.info.dest.workChain : 0;
  const account = new Address(workchain, Buffer.from(tx.address.toString(16).padStart(64, '0'), 'hex'));
  return {
    account: rawUpper(account),
    hash: tx.hash().toString('base64'),
    lt: tx.lt.toString(),
    now: tx.now,
    mc_block_seqno: mcSeqno,
    orig_status: statusOf(tx.oldStatus),
    end_status: statusOf(tx.endStatus),
    total_fees: tx.totalFees.coins.toString(),
    prev_trans_hash: Buffer.from(tx.prevTransactionHash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
    prev_trans_lt: tx.prevTransactionLt.toString(),
    description: descriptionJson(tx),
    block_ref: { workchain, shard: SHARD, seqno: mcSeqno },
    in_msg: tx.inMessage ? messageJson(tx.inMessage) : null,
    out_msgs: tx.outMessages.values().map(messageJson),
    account_state_before: null,
    account_state_after: null,
  };
}

/** The toncenter v3 JSON of one synthetic masterchain block. */
export function blockJson(block: SandboxBlock): Record<string, unknown> {
  return {
    workchain: -1,
    shard: SHARD,
    seqno: block.seqno,
    root_hash: block.rootHash,
    file_hash: createHash('sha256').update(`file:${block.rootHash}`).digest('base64'),
    global_id: -3,
    version: 0,
    after_merge: false,
    before_split: false,
    after_split: false,
    want_merge: false,
    want_split: false,
    key_block: false,
    vert_seqno_incr: false,
    flags: 1,
    gen_utime: String(block.genUtime),
    tx_count: block.transactions.length,
    masterchain_block_ref: { workchain: -1, shard: SHARD, seqno: block.seqno },
    prev_blocks: [{ workchain: -1, shard: SHARD, seqno: block.seqno - 1 }],
  };
}

function stackInput(entry: { type: string; value: unknown }): TupleItem {
  if (entry.type === 'num') return { type: 'int', value: BigInt(String(entry.value)) };
  const cell = Cell.fromBase64(String(entry.value));
  return entry.type === 'slice' ? { type: 'slice', cell } : { type: 'cell', cell };
}

function stackOutput(item: TupleItem): { type: string; value: string | null } {
  if (item.type === 'int') return { type: 'num', value: `0x${item.value.toString(16)}` };
  if (item.type === 'cell' || item.type === 'slice' || item.type === 'builder')
    return { type: item.type === 'slice' ? 'slice' : 'cell', value: item.cell.toBoc().toString('base64') };
  return { type: 'unsupported_type', value: null };
}

/** A request the server received, for assertions on what the watcher sent. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export class ToncenterSandbox {
  readonly blocks: SandboxBlock[] = [];
  readonly requests: SeenRequest[] = [];
  private server: Server | undefined;
  url = '';

  private constructor(readonly blockchain: Blockchain) {}

  /** A sandbox whose chain starts with an empty masterchain block `firstSeqno`, clock at `startTime`. */
  static async create(firstSeqno: number, startTime: number): Promise<ToncenterSandbox> {
    const blockchain = await Blockchain.create();
    blockchain.now = startTime;
    const sandbox = new ToncenterSandbox(blockchain);
    sandbox.seal(firstSeqno, []);
    return sandbox;
  }

  private seal(seqno: number, transactions: BlockchainTransaction[]): SandboxBlock {
    const digest = createHash('sha256').update(`sandbox-masterchain:${seqno}`);
    for (const tx of transactions) digest.update(tx.hash());
    const block = { seqno, rootHash: digest.digest('base64'), genUtime: this.blockchain.now ?? 0, transactions };
    this.blocks.push(block);
    return block;
  }

  /** Runs `sends` (in order) and puts every transaction they caused into the next masterchain block; the clock then moves 5 s. */
  async commit(...sends: (() => Promise<SendMessageResult>)[]): Promise<SandboxBlock> {
    const transactions: BlockchainTransaction[] = [];
    for (const send of sends) transactions.push(...(await send()).transactions);
    const block = this.seal(this.blocks.at(-1)!.seqno + 1, transactions);
    this.blockchain.now = (this.blockchain.now ?? 0) + 5;
    return block;
  }

  block(seqno: number): SandboxBlock | undefined {
    return this.blocks.find((b) => b.seqno === seqno);
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => {
        this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
        this.answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://sandbox'), raw).then(
          ([status, body]) => {
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(body));
          },
          (error: unknown) => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: String(error) }));
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async answer(method: string, url: URL, raw: string): Promise<[number, unknown]> {
    const q = url.searchParams;
    if (method === 'GET' && url.pathname === '/api/v3/masterchainInfo') {
      return [200, { first: blockJson(this.blocks[0]!), last: blockJson(this.blocks.at(-1)!) }];
    }
    if (method === 'GET' && url.pathname === '/api/v3/blocks') {
      const block = q.get('workchain') === '-1' && q.get('shard') === SHARD ? this.block(Number(q.get('seqno'))) : undefined;
      return [200, { blocks: block ? [blockJson(block)] : [] }];
    }
    if (method === 'GET' && url.pathname === '/api/v3/transactionsByMasterchainBlock') {
      const block = this.block(Number(q.get('seqno')));
      const limit = Number(q.get('limit') ?? 10);
      const offset = Number(q.get('offset') ?? 0);
      const ordered = [...(block?.transactions ?? [])].sort((a, b) => (a.lt < b.lt ? -1 : 1));
      if (q.get('sort') !== 'asc') ordered.reverse();
      const page = ordered.slice(offset, offset + limit).map((tx) => transactionJson(tx, block!.seqno));
      return [200, { transactions: page, address_book: {} }];
    }
    if (method === 'POST' && url.pathname === '/api/v3/runGetMethod') {
      const request = JSON.parse(raw) as { address: string; method: string; stack: { type: string; value: unknown }[] };
      const result = await this.blockchain.runGetMethod(Address.parse(request.address), request.method, request.stack.map(stackInput));
      return [200, { gas_used: Number(result.gasUsed), exit_code: result.exitCode, stack: result.stack.map(stackOutput) }];
    }
    if (method === 'GET' && url.pathname === '/api/v3/transactions') {
      const account = rawUpper(Address.parse(q.get('account') ?? ''));
      const all = this.blocks.flatMap((b) => b.transactions.map((tx) => transactionJson(tx, b.seqno))).filter((json) => json['account'] === account);
      all.sort((a, b) => (BigInt(a['lt'] as string) < BigInt(b['lt'] as string) ? -1 : 1));
      if (q.get('sort') !== 'asc') all.reverse();
      const offset = Number(q.get('offset') ?? 0);
      return [200, { transactions: all.slice(offset, offset + Number(q.get('limit') ?? 10)), address_book: {} }];
    }
    if (method === 'GET' && url.pathname === '/api/v3/accountStates') {
      const accounts = [];
      for (const address of q.getAll('address')) {
        const contract = await this.blockchain.getContract(Address.parse(address));
        const state = contract.accountState;
        if (!state) continue; // toncenter leaves out accounts that do not exist
        accounts.push({ address: rawUpper(contract.address), balance: contract.balance.toString(), status: statusOf(state.type), account_state_hash: null });
      }
      return [200, { accounts, address_book: {} }];
    }
    if (method === 'POST' && url.pathname === '/api/v3/message') {
      const { boc } = JSON.parse(raw) as { boc: string };
      const cell = Cell.fromBase64(boc);
      const message = loadMessage(cell.beginParse());
      try {
        await this.commit(() => this.blockchain.sendMessage(message));
      } catch (error) {
        return [500, { error: `cannot apply external message to current state: ${String(error).slice(0, 200)}` }];
      }
      return [200, { message_hash: cell.hash().toString('base64'), message_hash_norm: null }];
    }
    if (method === 'GET' && url.pathname === '/api/v3/transactionsByMessage') {
      const wanted = q.get('msg_hash') ?? '';
      const hash = /^[0-9a-fA-F]{64}$/.test(wanted) ? Buffer.from(wanted, 'hex').toString('base64') : wanted;
      const found = this.blocks.flatMap((b) =>
        b.transactions.filter((tx) => tx.inMessage && messageJson(tx.inMessage)['hash'] === hash).map((tx) => transactionJson(tx, b.seqno)),
      );
      return [200, { transactions: found, address_book: {} }];
    }
    return [404, { error: 'not found' }];
  }
}

/** The TON testnet the sandbox plays: the definition's first. */
export const SANDBOX_NETWORK: NetworkDefinition = tonDefinition.networks.testnets[0]!;

/** The TON definition with the sandbox's jetton `master` as `usdt_ton` on {@link SANDBOX_NETWORK}. */
export function tonWithJetton(master: Address): ChainDefinition {
  return {
    ...tonDefinition,
    coins: tonDefinition.coins.map((c) =>
      c.id === 'usdt_ton' ? { ...c, contracts: { ...c.contracts, [SANDBOX_NETWORK.id]: master.toString({ testOnly: true }) } } : c,
    ),
  };
}

/** The account treasury of `definition` on {@link SANDBOX_NETWORK}, reading the sandbox served at `url`; and the options it was made with. */
export function sandboxTreasury(
  url: string,
  definition: ChainDefinition,
): { treasury: AccountTreasury; options: { network: NetworkDefinition; providers: ProviderPool } } {
  const providers = new ProviderPool({ chain: 'ton', network: SANDBOX_NETWORK.id, endpoints: [{ name: 'sandbox', url }], timeoutMs: 10_000 });
  const options = { network: SANDBOX_NETWORK, providers };
  return { treasury: tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, definition).createAccountTreasury!(options), options };
}
