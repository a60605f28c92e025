import { isUniqueViolation, newId, sql, sqlQuery, type TransferAuthorization } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { X402Config } from '../config.js';
import type { X402Metrics } from '../metrics.js';
import type { FacilitatorRequest, SettleResponse } from '../protocol/messages.js';
import { X402_REASONS } from '../protocol/reasons.js';
import type { ExternalFacilitator } from './external-facilitator.js';
import { GAS_WALLET_REFUSAL_MESSAGES, GasWalletSendError, type GasWallets } from './gas-wallets.js';
import type { PaymentTarget } from './payment-target.js';
import type { X402Asset } from './x402-networks.js';

/** A verified payment, ready to settle: what `X402Payments.verify` established. */
export interface VerifiedPayment {
  readonly asset: X402Asset;
  readonly target: PaymentTarget;
  readonly payer: string;
  readonly payTo: string;
  readonly authorization: TransferAuthorization;
  readonly signature: string;
  /** The simulation's gas (the gas wallet's limit is built from it). */
  readonly gasUnits: bigint;
  /** The request as an external facilitator is to be asked (payload and requirements as received). */
  readonly request: FacilitatorRequest;
}

/** A settlement as the operator's CLI and dashboard list it. */
export interface SettlementView {
  readonly id: string;
  readonly project_id: string;
  readonly invoice_id: string;
  readonly source: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly payer: string;
  readonly pay_to: string;
  readonly amount_units: string;
  readonly mode: string;
  readonly status: string;
  readonly tx_hash: string | null;
  readonly gas_address: string | null;
  readonly spend_units: string | null;
  readonly error_reason: string | null;
  readonly created_at_iso: string;
  readonly settled_at_iso: string | null;
}

/** A settlement whose transaction's outcome is not recorded yet (`submitted`, `pending`): what the follow job reads. */
export interface UnfinishedSettlement {
  readonly id: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly mode: 'gas_wallet' | 'facilitator';
  readonly txHash: string;
  /** The authorization as far as its receipt is checked (`validAfter` is not kept: 0). */
  readonly authorization: TransferAuthorization;
  readonly gasAddress: string | null;
  readonly gasNonce: bigint | null;
  /** Seconds since the row was written (the database's clock). */
  readonly ageSeconds: number;
}

/** How a settlement's transaction ended, once known. */
export type SettlementOutcome =
  { readonly status: 'settled' } | { readonly status: 'pending' } | { readonly status: 'failed'; readonly reason: string; readonly message: string };

/**
 * How long a settlement waits between two reads of its receipt: 25 ms first, doubling up to
 * 250 ms. A transaction mined at once (a node that mines on send, a block due) answers at once; a
 * slow chain is asked no more often than every 250 ms.
 */
const RECEIPT_POLL_FIRST_MS = 25;
const RECEIPT_POLL_MAX_MS = 250;
/** PostgreSQL's bigint: a `validBefore` beyond it (a uint256 may be) is stored as this, which is forever all the same. */
const BIGINT_MAX = (1n << 63n) - 1n;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * A settlement refused before anything was sent: its transaction rolls back, the answer carries the
 * reason and `message`, a fixed text per kind of refusal; `detail` (a node's or provider's words,
 * balances, caps) goes to the log only.
 */
class Refusal extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** Statuses of a settlement whose transaction is out or may be: its value is on its way to the invoice. */
const IN_FLIGHT = ['submitted', 'pending', 'settled'] as const;

interface SettlementRow {
  id: string;
  project_id: string;
  invoice_id: string;
  source: string;
  chain: string;
  network: string;
  coin: string;
  payer: string;
  pay_to: string;
  value_units: string;
  mode: string;
  status: string;
  tx_hash: string | null;
  gas_address: string | null;
  spend_units: string | null;
  error_reason: string | null;
  created_at: Date;
  settled_at: Date | null;
}

/**
 * Settlement of verified payments (issue 41): one row per authorization in `x402_settlements`,
 * inserted first so that of two instances settling one authorization at once exactly one sends a
 * transaction (the other gets `invalid_exact_evm_nonce_already_used`); then the submission by the
 * gas wallet (`GasWallets.submit`, under its caps, nothing sent on a refusal) or the external
 * facilitator; then the wait for the receipt, up to `receiptWaitSeconds`. The invoice is never
 * touched here: the watchers see the transfer and the lifecycle credits it.
 */
export class X402Settlements {
  constructor(
    private readonly deps: {
      db: Knex;
      logger: Logger;
      x402Config: X402Config;
      x402GasWallets: GasWallets;
      x402ExternalFacilitator: ExternalFacilitator;
      x402Metrics: X402Metrics;
    },
  ) {}

  /**
   * Settles `payment`: `{ success: true, transaction }` once mined with the authorization's
   * Transfer; `settlement_pending` (with the transaction) when not mined within
   * `receiptWaitSeconds`; else `success: false` with the protocol's reason (`transaction` is ""
   * when nothing was sent). Never throws. Counted in `gateway_x402_settlements_total`.
   *
   * `remaining`, when given, is what the invoice still takes (its due less the settlements in
   * flight, {@link inFlightUnits}): it is read under a lock of the invoice, after this
   * authorization's row is claimed, and an authorization of more is refused
   * (`invalid_payment_requirements`, nothing sent), so two payers of one invoice never both pay it.
   */
  async settle(payment: VerifiedPayment, remaining?: () => Promise<bigint>): Promise<SettleResponse> {
    const response = await this.settleOnce(payment, remaining);
    this.deps.x402Metrics.settlement(payment.asset, response);
    return response;
  }

  /**
   * A settle of an authorization this gateway already sent and whose outcome is open (`submitted`
   * or `pending`, a retry after `settlement_pending`): waits for that transaction's receipt again
   * and answers as `settle` does. Undefined when there is no such settlement of exactly this
   * authorization (same payer, nonce, recipient, value and signature) for the invoice: the caller
   * verifies and settles as usual (and a different payload with a used nonce is refused there).
   */
  async resume(payment: Pick<VerifiedPayment, 'asset' | 'target' | 'payer' | 'authorization' | 'signature'>): Promise<SettleResponse | undefined> {
    const { asset, authorization } = payment;
    const [row] = await sqlQuery<{ id: string; tx_hash: string }>(
      this.deps.db,
      sql`select id, tx_hash from x402_settlements
           where chain = ${asset.chain} and network = ${asset.network} and asset = ${asset.asset.toLowerCase()}
             and payer = ${payment.payer.toLowerCase()} and auth_nonce = ${authorization.nonce.toLowerCase()}
             and invoice_id = ${payment.target.invoiceId} and pay_to = ${authorization.to.toLowerCase()}
             and value_units = ${authorization.value.toString()}::numeric and auth_signature = ${payment.signature.toLowerCase()}
             and status in ('submitted', 'pending') and tx_hash is not null`,
    );
    if (!row) return undefined;
    const response = await this.awaitReceipt(row.id, payment, row.tx_hash);
    this.deps.x402Metrics.settlement(asset, response);
    return response;
  }

  /**
   * The value of the invoice's settlements whose transaction is out or may be (`submitted`,
   * `pending`, `settled`) and is not yet among `recordedTxHashes`, the invoice's transactions the
   * watchers recorded: what is on its way to the invoice without counting there yet.
   */
  async inFlightUnits(invoiceId: string, recordedTxHashes: readonly string[]): Promise<bigint> {
    const [row] = await sqlQuery<{ units: string }>(
      this.deps.db,
      sql`select coalesce(sum(value_units), 0)::text as units from x402_settlements
           where invoice_id = ${invoiceId} and status = any(${[...IN_FLIGHT]}::text[])
             and (tx_hash is null or not (tx_hash = any(${recordedTxHashes.map((hash) => hash.toLowerCase())}::text[])))`,
    );
    return BigInt(row!.units);
  }

  private async settleOnce(payment: VerifiedPayment, remaining: (() => Promise<bigint>) | undefined): Promise<SettleResponse> {
    const { asset } = payment;
    const mode = this.deps.x402Config.settlement;
    if (mode === 'off') return this.failure(payment, X402_REASONS.settle, 'x402 settlement is off on this gateway.');
    const id = newId();
    let txHash: string;
    try {
      txHash = await this.deps.db.transaction(async (trx) => {
        await this.insert(trx, id, mode, payment);
        if (remaining) {
          // One settler per invoice at a time, across instances: what the others sent counts before this one sends.
          await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`x402:invoice:${payment.target.invoiceId}`}, 0))`);
          const left = await remaining();
          if (payment.authorization.value > left) {
            throw new Refusal(X402_REASONS.requirements, 'The invoice is paid or being paid already; nothing was sent.', `${left} units remain to pay`);
          }
        }
        if (mode === 'gas_wallet') {
          const sent = await this.deps.x402GasWallets.submit(trx, asset, id, payment.authorization, payment.signature, payment.gasUnits);
          if ('refused' in sent) throw new Refusal(X402_REASONS.settle, GAS_WALLET_REFUSAL_MESSAGES[sent.refused], sent.message);
          return sent.txHash;
        }
        // The row's transaction stays open while the facilitator works: a concurrent settler of the same authorization waits on it.
        const answer = await this.deps.x402ExternalFacilitator.settle(payment.request);
        if (!answer.transaction) {
          throw new Refusal(answer.errorReason ?? X402_REASONS.settle, 'The facilitator did not settle the payment; nothing was sent.', answer.errorMessage);
        }
        const hash = answer.transaction.toLowerCase();
        await sqlQuery(trx, sql`update x402_settlements set tx_hash = ${hash} where id = ${id}`);
        return hash;
      });
    } catch (error) {
      const where = { chain: asset.chain, network: asset.network, payer: payment.payer, invoiceId: payment.target.invoiceId };
      if (error instanceof Refusal) {
        this.deps.logger.info({ ...where, reason: error.reason, detail: error.detail }, 'x402 settlement refused');
        return this.failure(payment, error.reason, error.message);
      }
      if (isUniqueViolation(error, 'x402_settlements_authorization')) {
        return this.failure(payment, X402_REASONS.nonceUsed, 'This authorization is settled here already.');
      }
      if (error instanceof GasWalletSendError) {
        this.deps.logger.warn({ ...where, detail: error.message }, 'x402 settlement refused by the node');
        return this.failure(payment, X402_REASONS.transactionFailed, 'The node refused the settlement; nothing was recorded.');
      }
      if (isUniqueViolation(error, 'x402_settlements_gas_nonce')) {
        // The wallet's lock makes this a bug or a row written by hand: nothing was sent (the row is written before the send).
        this.deps.logger.error({ err: error, ...where }, 'x402 settlement: the gas nonce allocated is held by another settlement');
        return this.failure(payment, X402_REASONS.settle, "The gas wallet's nonce is taken; nothing was sent.");
      }
      this.deps.logger.error({ err: error, ...where }, 'x402 settlement failed');
      return this.failure(payment, X402_REASONS.settle, 'The settlement failed unexpectedly; nothing was recorded.');
    }
    return this.awaitReceipt(id, payment, txHash);
  }

  /** Whether this gateway recorded a settlement of the authorization (verify's replay check). */
  async known(asset: X402Asset, payer: string, nonce: string): Promise<boolean> {
    const [row] = await sqlQuery<{ known: boolean }>(
      this.deps.db,
      sql`select exists(select 1 from x402_settlements
                         where chain = ${asset.chain} and network = ${asset.network} and asset = ${asset.asset.toLowerCase()}
                           and payer = ${payer.toLowerCase()} and auth_nonce = ${nonce.toLowerCase()}) as known`,
    );
    return row!.known;
  }

  /** The latest settlements, newest first (operator reads). */
  async list(filter: { readonly projectId?: string; readonly status?: string; readonly limit: number }): Promise<SettlementView[]> {
    const rows = await sqlQuery<SettlementRow>(
      this.deps.db,
      sql`select id, project_id, invoice_id, source, chain, network, coin, payer, pay_to, value_units::text as value_units, mode, status,
                 tx_hash, gas_address, spend_units::text as spend_units, error_reason, created_at, settled_at
            from x402_settlements
           where (${filter.projectId ?? null}::text is null or project_id = ${filter.projectId ?? null})
             and (${filter.status ?? null}::text is null or status = ${filter.status ?? null})
           order by created_at desc, id desc
           limit ${Math.max(1, Math.min(1000, Math.floor(filter.limit)))}`,
    );
    return rows.map((row) => ({
      id: row.id,
      project_id: row.project_id,
      invoice_id: row.invoice_id,
      source: row.source,
      chain: row.chain,
      network: row.network,
      coin: row.coin,
      payer: row.payer,
      pay_to: row.pay_to,
      amount_units: row.value_units,
      mode: row.mode,
      status: row.status,
      tx_hash: row.tx_hash,
      gas_address: row.gas_address,
      spend_units: row.spend_units,
      error_reason: row.error_reason,
      created_at_iso: row.created_at.toISOString(),
      settled_at_iso: row.settled_at?.toISOString() ?? null,
    }));
  }

  /**
   * Settlements sent whose outcome is not recorded: every `pending` one, and `submitted` ones older
   * than `submittedForSeconds` (younger ones have their settler still waiting), oldest first.
   */
  async unfinished(options: { readonly submittedForSeconds: number; readonly limit: number }): Promise<UnfinishedSettlement[]> {
    const rows = await sqlQuery<{
      id: string;
      chain: string;
      network: string;
      coin: string;
      mode: 'gas_wallet' | 'facilitator';
      tx_hash: string;
      payer: string;
      pay_to: string;
      value_units: string;
      auth_nonce: string;
      valid_before: string;
      gas_address: string | null;
      gas_nonce: string | null;
      age_seconds: number;
    }>(
      this.deps.db,
      sql`select id, chain, network, coin, mode, tx_hash, payer, pay_to, value_units::text as value_units, auth_nonce,
                 valid_before::text as valid_before, gas_address, gas_nonce::text as gas_nonce,
                 extract(epoch from now() - created_at)::float8 as age_seconds
            from x402_settlements
           where status in ('submitted', 'pending') and tx_hash is not null
             and (status = 'pending' or created_at < now() - make_interval(secs => ${options.submittedForSeconds}))
           order by created_at, id
           limit ${Math.max(1, Math.floor(options.limit))}`,
    );
    return rows.map((row) => ({
      id: row.id,
      chain: row.chain,
      network: row.network,
      coin: row.coin,
      mode: row.mode,
      txHash: row.tx_hash,
      authorization: {
        from: row.payer,
        to: row.pay_to,
        value: BigInt(row.value_units),
        validAfter: 0n,
        validBefore: BigInt(row.valid_before),
        nonce: row.auth_nonce,
      },
      gasAddress: row.gas_address,
      gasNonce: row.gas_nonce === null ? null : BigInt(row.gas_nonce),
      ageSeconds: Number(row.age_seconds),
    }));
  }

  /**
   * Records the chain's word on a sent settlement still `submitted` or `pending` (a finished one
   * keeps its outcome: the settler and the follow job may both learn it); whether this changed it.
   */
  async finish(id: string, outcome: SettlementOutcome): Promise<boolean> {
    const reason = outcome.status === 'failed' ? outcome.reason : null;
    const message = outcome.status === 'failed' ? outcome.message : null;
    const changed = await sqlQuery<{ id: string }>(
      this.deps.db,
      sql`update x402_settlements
             set status = ${outcome.status}, settled_at = case when ${outcome.status}::text = 'settled' then now() else settled_at end,
                 error_reason = ${reason}, error_message = ${message}
           where id = ${id} and status in ('submitted', 'pending') and status <> ${outcome.status}
          returning id`,
    );
    return changed.length > 0;
  }

  /** The settlement's row, `submitted`; a second one of the same authorization waits for the first's transaction, then fails unique. */
  private async insert(trx: Knex.Transaction, id: string, mode: 'gas_wallet' | 'facilitator', payment: VerifiedPayment): Promise<void> {
    const { asset, authorization, target } = payment;
    const validBefore = authorization.validBefore > BIGINT_MAX ? BIGINT_MAX : authorization.validBefore;
    await sqlQuery(
      trx,
      sql`insert into x402_settlements (id, project_id, invoice_id, source, chain, network, coin, asset, payer, pay_to,
                                        value_units, auth_nonce, auth_signature, valid_before, mode, status)
          values (${id}, ${target.projectId}, ${target.invoiceId}, ${target.source}, ${asset.chain}, ${asset.network}, ${asset.coin},
                  ${asset.asset.toLowerCase()}, ${payment.payer.toLowerCase()}, ${authorization.to.toLowerCase()},
                  ${authorization.value.toString()}::numeric, ${authorization.nonce.toLowerCase()},
                  ${payment.signature.toLowerCase()}, ${validBefore.toString()}::bigint,
                  ${mode}, 'submitted')`,
    );
  }

  /**
   * Waits for the settlement's receipt up to `receiptWaitSeconds`, read at growing intervals
   * (25 ms to 250 ms; a wait, not state: the row says `submitted` meanwhile), then records what
   * the chain says.
   */
  private async awaitReceipt(id: string, payment: Pick<VerifiedPayment, 'asset' | 'payer' | 'authorization'>, txHash: string): Promise<SettleResponse> {
    const { asset, authorization } = payment;
    const deadline = Date.now() + this.deps.x402Config.receiptWaitSeconds * 1000;
    let receipt = null;
    let pause = RECEIPT_POLL_FIRST_MS;
    for (;;) {
      try {
        receipt = TX_HASH.test(txHash) ? await asset.transfers.receipt(txHash, authorization, asset.domain) : null;
      } catch (error) {
        // A provider failing a moment is waited out like a block not mined yet.
        this.deps.logger.warn({ err: error, tx: txHash }, 'x402 settlement receipt not readable');
      }
      if (receipt || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
      pause = Math.min(pause * 2, RECEIPT_POLL_MAX_MS);
    }
    const done = { transaction: txHash, network: asset.caip, payer: payment.payer };
    if (!receipt) {
      await this.record(id, { status: 'pending' });
      return {
        success: false,
        errorReason: X402_REASONS.pending,
        errorMessage: `${txHash} was not mined within ${this.deps.x402Config.receiptWaitSeconds} s.`,
        ...done,
      };
    }
    const outcome = receiptOutcome(txHash, receipt);
    await this.record(id, outcome);
    if (outcome.status === 'settled') return { success: true, ...done };
    return { success: false, errorReason: X402_REASONS.transactionFailed, errorMessage: outcome.message, ...done };
  }

  /** {@link finish}; a database failing now is logged, not thrown: the transaction is out and the answer says so. */
  private async record(id: string, outcome: SettlementOutcome): Promise<void> {
    try {
      await this.finish(id, outcome);
    } catch (error) {
      this.deps.logger.error({ err: error, settlement: id, status: outcome.status }, 'x402 settlement status not recorded');
    }
  }

  private failure(payment: Pick<VerifiedPayment, 'asset' | 'payer'>, reason: string, message: string): SettleResponse {
    return { success: false, errorReason: reason, errorMessage: message, transaction: '', network: payment.asset.caip, payer: payment.payer };
  }
}

/** What a mined settlement's receipt says: `settled` with the authorization's Transfer, else `failed` (reverted, or no such Transfer). */
export function receiptOutcome(
  txHash: string,
  receipt: { readonly success: boolean; readonly transferLogged: boolean },
): Extract<SettlementOutcome, { status: 'settled' | 'failed' }> {
  if (receipt.success && receipt.transferLogged) return { status: 'settled' };
  const message = receipt.success ? `${txHash} logged no Transfer of the authorization.` : `${txHash} reverted.`;
  return { status: 'failed', reason: X402_REASONS.transactionFailed, message };
}
