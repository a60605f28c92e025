import {
  AppError,
  chainErrors,
  checkPayoutRequest,
  expectShape,
  fromBaseUnits,
  payoutPlanBuild,
  payoutRecipientsContext,
  payoutShortfall,
  treasuryChainErrors,
  type AccountPayoutRequest,
  type AccountPlanBuild,
  type AccountStep,
  type AccountSweepMethod,
  type AccountSweepRequest,
  type AccountTreasury,
  type AddressHoldings,
  type ChainDefinition,
  type NetworkDefinition,
  type OperatorAccount,
  type SweepQuote,
  type TransactionState,
  type VerifiedStep,
  type VerifiedTransaction,
  type WatcherOptions,
} from '@gw/chain-api';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64Decoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Address,
  type Blockhash,
  type Instruction,
  type Nonce,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { isSolAddress } from '../address.js';
import { resultOf } from '../rpc.js';
import { decodeNonceAccount, decodeTokenAccount, SolReads, SPL_TOKEN_PROGRAM, TOKEN_ACCOUNT_SIZE, type SolAccount } from './sol-reads.js';
import { decodeStepData, encodeStepData, type SolStepData } from './step-data.js';
import { verifySignedTransaction } from './verify-signed.js';

/** The base fee of a one-signature transaction (lamports), where no fee could be read. */
const SIGNATURE_FEE = 5_000n;
/** A blockhash plan this close (in blocks, ~0.4 s each) to its last valid block height is refused before broadcast. */
const EXPIRY_MARGIN_BLOCKS = 10n;
/** The signer path of a Solana account: `m/44'/501'/<account>'/0'` (Phantom, Solflare, the Solana CLI). */
const SOL_PATH = /^m\/44'\/501'\/(\d+)'\/0'$/;
const base64 = getBase64Decoder();

/**
 * The account treasury of one Solana network (issue 43). Payments land in the merchant's own
 * address (Solana Pay references, no pool), so there is nothing to sweep: `methods()` is empty and
 * `build` refuses with `treasury_method_unavailable`. What it does is read the merchant address's
 * holdings (SOL and each token coin's accounts) and build payouts and refunds from it as unsigned
 * legacy transactions (`sol-tx`), signed offline by `gateway-signer` (SLIP-10 `m/44'/501'/0'/0'`),
 * verified here, broadcast through the watcher's JSON-RPC pool.
 *
 * A transaction's lifetime is a recent blockhash (valid ~150 blocks, 60 to 90 s) or a durable nonce:
 * with the operator's `nonce` account configured, a one-recipient payout carries its nonce and stays
 * signable until the nonce advances (docs/adr/0015-solana-offline-signing-blockhash.md).
 */
export class SolTreasury implements AccountTreasury {
  readonly network: NetworkDefinition;
  readonly nativeCoin = 'sol';
  private readonly reads: SolReads;
  /** Token coin id → its mint on this network. */
  private readonly mints = new Map<string, string>();
  private readonly decimals = new Map<string, number>();

  constructor(definition: ChainDefinition, options: WatcherOptions) {
    this.network = options.network;
    this.reads = new SolReads(options.providers, options.network);
    for (const c of definition.coins) {
      const mint = c.contracts?.[options.network.id];
      if (mint !== undefined) {
        this.mints.set(c.id, mint);
        this.decimals.set(c.id, c.decimals);
      }
    }
  }

  /**
   * SOL (lamports) and, per token coin, the sum of every SPL token account the address owns of the
   * coin's mint (`getTokenAccountsByOwner`; the associated account is the one a payout spends). No
   * nonce (0n). Moving a token or SOL costs one signature's fee.
   */
  async holdings(addresses: readonly string[]): Promise<Map<string, AddressHoldings>> {
    for (const a of addresses) if (!isSolAddress(a)) throw chainErrors.validation_error({ message: `${String(a)} is not a Solana address.` });
    const sol = await this.reads.balances(addresses);
    const perCoin = new Map<string, bigint[]>();
    for (const [coin, mint] of this.mints)
      perCoin.set(
        coin,
        (await this.reads.tokenAccounts(addresses, mint)).map((list) => list.reduce((s, a) => s + a.amount, 0n)),
      );
    const out = new Map<string, AddressHoldings>();
    addresses.forEach((a, i) => {
      const balances: Record<string, bigint> = { [this.nativeCoin]: sol[i]! };
      const tokens = [...perCoin].map(([coin, held]) => {
        balances[coin] = held[i]!;
        return { coin, moveCostUnits: SIGNATURE_FEE, gasLackingUnits: sol[i]! >= SIGNATURE_FEE ? 0n : SIGNATURE_FEE - sol[i]!, dust: held[i] === 0n };
      });
      out.set(a, { address: a, balances, nonce: 0n, tokens, nativeMoveCostUnits: SIGNATURE_FEE });
    });
    return out;
  }

  /** None: every invoice pays the merchant's own address, nothing is ever swept. */
  methods(_coin: string): readonly AccountSweepMethod[] {
    return [];
  }

  async quote(request: AccountSweepRequest): Promise<SweepQuote[]> {
    if (!request.method) return [];
    const reason = this.nothingToSweep().message;
    return [{ method: request.method, available: false, reason, sources: 0, movedUnits: 0n, feeUnits: 0n, operatorPaysUnits: 0n, steps: 0, rounds: 1 }];
  }

  async build(_request: AccountSweepRequest): Promise<AccountPlanBuild> {
    throw this.nothingToSweep();
  }

  /**
   * A payout from the merchant address (`from.kind` `deposit`: the wallet's address, receive index
   * 0) or the operator's funding account: one legacy transaction per recipient, fee payer and
   * signer the sender. SOL: a System `Transfer` of exactly the amount. A token: SPL `TransferChecked`
   * (the mint's decimals) from the sender's associated token account to the recipient's, preceded
   * by the Associated Token program's `CreateIdempotent` (rent paid by the sender) when that account
   * does not exist yet. Fees (`getFeeForMessage`) and the rent of accounts created are the step's
   * `feeUnits`. The sender must keep its own account rent-exempt after the payout.
   *
   * Lifetime: with the operator's `nonce` account configured (a System nonce account whose
   * authority is the sender) the payout carries its durable nonce, `AdvanceNonceAccount` first; one
   * nonce serves one transaction, so such a plan pays one recipient (several are refused with
   * `treasury_method_unavailable`). Without one, every step carries the latest blockhash and the plan
   * is good for ~150 blocks: `checkFresh` refuses it afterwards.
   */
  async buildPayout(request: AccountPayoutRequest): Promise<AccountPlanBuild> {
    const operator = checkPayoutRequest(request, isSolAddress, this.network.id);
    const mint = request.coin === this.nativeCoin ? undefined : this.mints.get(request.coin);
    if (request.coin !== this.nativeCoin && !mint)
      throw chainErrors.validation_error({ message: `${String(request.coin)} is not a coin of Solana on ${this.network.id}.` });
    let sender: string;
    let signer: AccountStep['signer'];
    if (operator) {
      if (!isSolAddress(operator.address)) throw chainErrors.validation_error({ message: `The funding account ${operator.address} is not a Solana address.` });
      checkPath(operator.path, 'funding account');
      sender = operator.address;
      signer = { kind: 'operator', account: operator };
    } else {
      const { source } = request.from as Extract<AccountPayoutRequest['from'], { kind: 'deposit' }>;
      if (!isSolAddress(source.address) || source.key?.canonical !== source.address || source.index !== 0)
        throw chainErrors.validation_error({
          message: `A Solana payout is sent from the wallet's own address (receive index 0); ${source.address} is not one.`,
        });
      sender = source.address;
      signer = { kind: 'deposit', address: source.address, key: source.key, index: 0, path: "m/44'/501'/0'/0'" };
    }
    const nonceAccount = request.operatorAccounts?.nonce;
    if (nonceAccount && request.recipients.length > 1) {
      throw treasuryChainErrors.treasury_method_unavailable({
        message: `A durable nonce (the nonce account ${nonceAccount.address}) signs one transaction at a time: pay these ${request.recipients.length} recipients in plans of one each.`,
      });
    }

    const senderAta = mint ? await ata(sender, mint) : undefined;
    const recipientAtas = mint ? await Promise.all(request.recipients.map((r) => ata(r.address, mint))) : [];
    const named = [...(senderAta ? [senderAta, mint!] : []), ...recipientAtas, ...(nonceAccount ? [nonceAccount.address] : [])];
    const accounts = await this.reads.accounts(named);
    const accountOf = (a: string): SolAccount | null => accounts[named.indexOf(a)] ?? null;
    const [held] = await this.reads.balances([sender]);
    const rentTokenAccount = mint ? await this.reads.rentExempt(TOKEN_ACCOUNT_SIZE) : 0n;
    const rentSender = await this.reads.rentExempt(0);

    let decimals: number | undefined;
    let tokenHeld = 0n;
    if (mint) {
      const mintAccount = accountOf(mint);
      if (!mintAccount || mintAccount.owner !== SPL_TOKEN_PROGRAM || mintAccount.data.length < 82)
        throw treasuryChainErrors.treasury_method_unavailable({ message: `The mint ${mint} of ${request.coin} is no SPL token mint on ${this.network.id}.` });
      decimals = mintAccount.data[44]!;
      if (decimals !== this.decimals.get(request.coin))
        throw chainErrors.validation_error({
          message: `The mint ${mint} has ${decimals} decimals; ${request.coin} is defined with ${this.decimals.get(request.coin)}.`,
        });
      const account = accountOf(senderAta!);
      tokenHeld = account ? (decodeTokenAccount(senderAta!, account)?.amount ?? 0n) : 0n;
    }

    let lifetime: { kind: 'nonce'; account: OperatorAccount; nonce: string } | { kind: 'blockhash'; blockhash: string; lastValidBlockHeight: bigint };
    if (nonceAccount) {
      const state = decodeNonceAccount(accountOf(nonceAccount.address));
      if (!state)
        throw chainErrors.validation_error({
          message: `The nonce account ${nonceAccount.address} is no initialized System nonce account on ${this.network.id}.`,
        });
      if (state.authority !== sender)
        throw chainErrors.validation_error({
          message: `The nonce account ${nonceAccount.address}'s authority is ${state.authority}, not the sender ${sender}.`,
        });
      lifetime = { kind: 'nonce', account: nonceAccount, nonce: state.nonce };
    } else {
      const latest = await this.reads.latestBlockhash();
      lifetime = { kind: 'blockhash', ...latest };
    }

    const payer = createNoopSigner(address(sender));
    const created = new Set<string>();
    const steps: AccountStep[] = [];
    for (const [i, r] of request.recipients.entries()) {
      const instructions: Instruction[] = [];
      let rent = 0n;
      let detail = '';
      if (mint) {
        const destination = recipientAtas[i]!;
        const existing = accountOf(destination);
        if (existing && decodeTokenAccount(destination, existing)?.owner !== r.address)
          throw treasuryChainErrors.treasury_wrong_network({ message: `Recipient ${i} (${r.reference}): ${destination} is not ${r.address}'s token account.` });
        if (!existing) {
          instructions.push(
            getCreateAssociatedTokenIdempotentInstruction({
              payer,
              ata: destination,
              owner: address(r.address),
              mint: address(mint),
              tokenProgram: TOKEN_PROGRAM_ADDRESS,
            }),
          );
          if (!created.has(destination)) rent = rentTokenAccount;
          created.add(destination);
          detail = `, creating its token account ${destination} (rent ${rentTokenAccount} lamports paid by the sender)`;
        } else detail = ` (its token account ${destination})`;
        instructions.push(
          getTransferCheckedInstruction({ source: senderAta!, mint: address(mint), destination, authority: payer, amount: r.units, decimals: decimals! }),
        );
      } else {
        instructions.push(getTransferSolInstruction({ source: payer, destination: address(r.address), amount: r.units }));
      }
      const messageBytes = compiled(sender, instructions, lifetime);
      const fee = await this.feeOf(sender, instructions, lifetime, messageBytes);
      const data: SolStepData =
        lifetime.kind === 'nonce'
          ? { message: messageBytes, lifetime: 'nonce', nonce_account: lifetime.account.address }
          : { message: messageBytes, lifetime: 'blockhash', last_valid_block_height: lifetime.lastValidBlockHeight.toString() };
      steps.push({
        id: `payout-${i}`,
        round: 1,
        stage: 0,
        description: mint
          ? `Pay ${r.units} ${request.coin} base units (mint ${mint}) from ${sender} to ${r.address} (${r.reference})${detail}`
          : `Pay ${solText(r.units)} from ${sender} to ${r.address} (${r.reference})`,
        signer,
        kind: 'transaction',
        unsigned: { format: 'sol-tx', data: encodeStepData(data) },
        nonce: null,
        moves: { [request.coin]: r.units },
        feeUnits: fee + rent,
        to: r.address,
      });
    }

    const spent = steps.reduce((s, step) => s + step.feeUnits, 0n) + (mint ? 0n : request.recipients.reduce((s, r) => s + r.units, 0n));
    if (mint && tokenHeld < request.recipients.reduce((s, r) => s + r.units, 0n))
      payoutShortfall(
        request.coin,
        request.recipients.reduce((s, r) => s + r.units, 0n),
        tokenHeld,
        sender,
      );
    // The sender stays rent-exempt: a system account may not be left with less than that, short of nothing.
    if (held! < spent + rentSender) payoutShortfall(this.nativeCoin, spent + rentSender, held!, sender);

    return payoutPlanBuild({
      coin: request.coin,
      recipients: request.recipients,
      steps,
      operator: operator !== undefined,
      context: {
        sender,
        recipients: payoutRecipientsContext(request.recipients),
        lifetime: lifetime.kind,
        ...(lifetime.kind === 'nonce'
          ? { nonce_account: lifetime.account.address, nonce: lifetime.nonce }
          : { blockhash: lifetime.blockhash, last_valid_block_height: lifetime.lastValidBlockHeight.toString() }),
        ...(mint ? { mint, decimals: decimals! } : {}),
      },
    });
  }

  continue(): AccountStep[] {
    return [];
  }

  verifySigned(step: AccountStep, signed: string): VerifiedStep {
    return verifySignedTransaction(step, signed);
  }

  /**
   * A blockhash step is stale once the chain's block height is within `EXPIRY_MARGIN_BLOCKS` of its
   * last valid block height; a nonce step once its nonce account holds another nonce than the one the
   * message carries (it advanced: another transaction used it) or is no nonce account any more. A
   * step already on chain (its txid in `txids`, known to `getSignatureStatuses`) is not stale.
   */
  async checkFresh(steps: readonly AccountStep[], txids?: ReadonlyMap<string, string>): Promise<void> {
    const ours = steps.filter((s) => s.unsigned.format === 'sol-tx');
    const known = [...ours].map((s) => txids?.get(s.id)).filter((t): t is string => typeof t === 'string');
    const statuses = await this.reads.signatureStatuses(known);
    const landed = new Set(known.filter((_, i) => statuses[i] !== null && statuses[i]!.err === null));
    const pending = ours.filter((s) => !landed.has(txids?.get(s.id) ?? ''));
    if (pending.length === 0) return;
    const decoded = pending.map((step) => ({ step, ...decodeStepData(step) }));
    const blockhashSteps = decoded.filter((d) => d.data.lifetime === 'blockhash');
    if (blockhashSteps.length > 0) {
      const height = await this.reads.blockHeight();
      for (const d of blockhashSteps) {
        const last = BigInt((d.data as Extract<SolStepData, { lifetime: 'blockhash' }>).last_valid_block_height);
        if (height + EXPIRY_MARGIN_BLOCKS > last)
          throw treasuryChainErrors.treasury_nonce_stale({
            message: `Step ${d.step.id}: its blockhash is good until block height ${last}; the chain is at ${height}. Make a new plan (or configure a durable nonce account for offline signing).`,
          });
      }
    }
    const nonceSteps = decoded.filter((d) => d.data.lifetime === 'nonce');
    if (nonceSteps.length > 0) {
      const accounts = nonceSteps.map((d) => (d.data as Extract<SolStepData, { lifetime: 'nonce' }>).nonce_account);
      const states = (await this.reads.accounts(accounts)).map(decodeNonceAccount);
      nonceSteps.forEach((d, i) => {
        const carried = 'lifetimeToken' in d.message ? String(d.message.lifetimeToken) : '';
        if (states[i]?.nonce !== carried)
          throw treasuryChainErrors.treasury_nonce_stale({
            message: `Step ${d.step.id}: the nonce account ${accounts[i]} holds ${states[i]?.nonce ?? 'no nonce'}, the plan signed ${carried}: it advanced. Make a new plan.`,
          });
      });
    }
  }

  /** `sendTransaction` (base64); a transaction the node already has (its signature known) resolves too. */
  async broadcast(tx: VerifiedTransaction): Promise<string> {
    expectShape(/^[0-9a-f]+$/.test(tx.hex), 'a Solana wire transaction, hex');
    const wire = Buffer.from(tx.hex, 'hex').toString('base64');
    const [answer] = await this.reads.rpc.batch('sol.treasury.broadcast', [
      ['sendTransaction', [wire, { encoding: 'base64', preflightCommitment: 'confirmed' }]],
    ]);
    if (answer?.error === undefined) {
      const id = resultOf(answer, 'sendTransaction');
      expectShape(id === tx.txid, 'sendTransaction answers the transaction signature');
      return tx.txid;
    }
    const known = await this.transaction(tx.txid).catch(() => null);
    if (known) return tx.txid;
    throw treasuryChainErrors.treasury_broadcast_rejected({
      message: `The node refused the transaction: ${answer.error.message ?? 'error'} (${answer.error.code ?? '?'})`,
    });
  }

  /**
   * `getSignatureStatuses`: `finalized` is confirmed (1 confirmation, as the watcher counts), a
   * `processed` or `confirmed` transaction 0; a failed execution carries its error as `failure`.
   */
  async transaction(txid: string): Promise<TransactionState | null> {
    expectShape(typeof txid === 'string' && /^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(txid), 'a Solana signature, base58');
    const [status] = await this.reads.signatureStatuses([txid]);
    if (!status) return null;
    return {
      txid,
      confirmations: status.status === 'finalized' ? 1 : 0,
      blockHeight: status.slot,
      blockHash: null,
      ...(status.err !== null ? { failed: JSON.stringify(status.err) } : {}),
    };
  }

  private nothingToSweep(): AppError {
    return treasuryChainErrors.treasury_method_unavailable({
      message:
        "Solana payments land in the merchant's own address (a Solana Pay reference per invoice): there is nothing to sweep. Payouts and refunds are built from that address.",
    });
  }

  private async feeOf(sender: string, instructions: readonly Instruction[], lifetime: Parameters<typeof compiled>[2], messageBytes: string): Promise<bigint> {
    // A durable nonce is no recent blockhash, so a node prices the same message with the latest blockhash instead.
    const priced =
      lifetime.kind === 'blockhash' ? messageBytes : compiled(sender, instructions, { kind: 'blockhash', ...(await this.reads.latestBlockhash()) });
    return this.reads.feeForMessage(priced);
  }
}

/** The serialized legacy message (base64) of `instructions` paid by `sender` with `lifetime`. */
function compiled(
  sender: string,
  instructions: readonly Instruction[],
  lifetime: { kind: 'nonce'; account: OperatorAccount; nonce: string } | { kind: 'blockhash'; blockhash: string; lastValidBlockHeight: bigint },
): string {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(address(sender), m),
    (m) =>
      lifetime.kind === 'nonce'
        ? setTransactionMessageLifetimeUsingDurableNonce(
            { nonce: lifetime.nonce as Nonce, nonceAccountAddress: address(lifetime.account.address), nonceAuthorityAddress: address(sender) },
            m,
          )
        : setTransactionMessageLifetimeUsingBlockhash({ blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return base64.decode(compileTransaction(message).messageBytes);
}

async function ata(owner: string, mint: string): Promise<Address> {
  return (await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
}

function checkPath(path: string, what: string): void {
  if (!SOL_PATH.test(path)) throw chainErrors.validation_error({ message: `The ${what}'s path must be m/44'/501'/<account>'/0'; got ${path}.` });
}

/** `0.5 SOL (500000000 lamports)`. */
function solText(units: bigint): string {
  return `${fromBaseUnits(units, 9)} SOL (${units} lamports)`;
}
