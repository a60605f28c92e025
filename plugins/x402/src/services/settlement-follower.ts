import type { AuthorizedTransfers } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { Logger } from 'pino';
import type { X402Config } from '../config.js';
import type { FollowedResult, X402Metrics } from '../metrics.js';
import { receiptOutcome, type SettlementOutcome, type UnfinishedSettlement, type X402Settlements } from './x402-settlements.js';

/** The `error_reason` of a settlement whose transaction the node dropped unmined. */
export const DROPPED_REASON = 'dropped';

/**
 * How long a gas wallet's settlement the node does not know may stay pending: the gateway sent it
 * to this node, which forgot it (evicted, restarted); until it is failed, the wallet's next
 * settlements take nonces after its own and wait behind the gap.
 */
const GAS_WALLET_DROPPED_AFTER_SECONDS = 10 * 60;
/** The same for an external facilitator's transaction, which may go through a relay this node never sees before it is mined. */
const FACILITATOR_DROPPED_AFTER_SECONDS = 60 * 60;
/** Settlements looked at in one pass (the oldest first; the next pass takes the rest). */
const BATCH = 500;

/** What one pass found: how many settlements it looked at, and how many it recorded each way. */
export interface FollowReport {
  readonly looked: number;
  readonly settled: number;
  readonly failed: number;
  readonly dropped: number;
  /** Left as they were: not mined and the node still has it, a network that cannot be read now, or one another instance finished first. */
  readonly waiting: number;
}

/**
 * Follows the settlements a settler left `submitted` (its process stopped while waiting) or
 * `pending` (not mined within `receiptWaitSeconds`), the job `x402.follow` at
 * `plugins.x402.followCron`. Mined: `settled`, or `failed` (reverted, no Transfer), as the settler
 * would have recorded it. Not mined and unknown to the node: `failed` with `dropped` once the
 * wallet's nonce was used by another transaction, or after a while (10 minutes for the gas
 * wallet's, an hour for an external facilitator's); the gas wallet's next settlement then reuses
 * its nonce. Each outcome is recorded only over `submitted`/`pending` (a settler may learn it at
 * the same time), and counted in `gateway_x402_settlements_followed_total`.
 */
export class SettlementFollower {
  constructor(
    private readonly deps: {
      logger: Logger;
      x402Config: X402Config;
      x402Settlements: X402Settlements;
      watchersOutputs: ReceivedOutputs;
      x402Metrics: X402Metrics;
    },
  ) {}

  /** One pass over the unfinished settlements. A network whose node cannot be read is left for the next pass. */
  async follow(): Promise<FollowReport> {
    const rows = await this.deps.x402Settlements.unfinished({ submittedForSeconds: this.deps.x402Config.receiptWaitSeconds, limit: BATCH });
    const counts = { settled: 0, failed: 0, dropped: 0, waiting: 0 };
    // A gas wallet's mined nonce, read once per pass before any of its settlements' receipts.
    const minedNonces = new Map<string, Promise<bigint>>();
    for (const row of rows) {
      let result: FollowedResult | undefined;
      try {
        result = await this.followOne(row, minedNonces);
      } catch (error) {
        this.deps.logger.warn({ err: error, settlement: row.id, tx: row.txHash, chain: row.chain, network: row.network }, 'x402 settlement not followed');
      }
      if (result === undefined) counts.waiting += 1;
      else counts[result] += 1;
    }
    return { looked: rows.length, ...counts };
  }

  /** What the chain says of one settlement now, recorded; undefined while it still waits. */
  private async followOne(row: UnfinishedSettlement, minedNonces: Map<string, Promise<bigint>>): Promise<FollowedResult | undefined> {
    const transfers = this.deps.watchersOutputs.accountTreasuryOf(row.chain, row.network)?.authorizedTransfers;
    const domain = transfers && (await transfers.domain(row.coin));
    if (!transfers || !domain) throw new Error(`${row.chain} ${row.network} is not watched here, or ${row.coin} has no EIP-3009 domain there`);
    // Read before the receipt: a nonce past the settlement's with no receipt after it means another transaction took the nonce.
    const minedNonce = row.gasAddress !== null && row.gasNonce !== null ? await this.minedNonceOf(transfers, row, minedNonces) : undefined;
    const receipt = await transfers.receipt(row.txHash, row.authorization, domain);
    if (receipt) {
      const outcome = receiptOutcome(row.txHash, receipt);
      return this.finish(row, outcome, outcome.status);
    }
    if (await transfers.transactionKnown(row.txHash)) return this.stillWaiting(row);
    const nonceTaken = minedNonce !== undefined && row.gasNonce !== null && minedNonce > row.gasNonce;
    const forgottenAfter = row.mode === 'gas_wallet' ? GAS_WALLET_DROPPED_AFTER_SECONDS : FACILITATOR_DROPPED_AFTER_SECONDS;
    if (!nonceTaken && row.ageSeconds < forgottenAfter) return this.stillWaiting(row);
    const message = nonceTaken
      ? `${row.txHash} was dropped: the node does not have it, and another transaction of ${row.gasAddress} used its nonce ${row.gasNonce}.`
      : `${row.txHash} was dropped: the node has not had it for ${Math.floor(row.ageSeconds / 60)} minutes, and it was never mined.`;
    return this.finish(row, { status: 'failed', reason: DROPPED_REASON, message }, 'dropped');
  }

  /** A `submitted` settlement whose settler is gone is `pending` from now on (not mined yet, the node has it). */
  private async stillWaiting(row: UnfinishedSettlement): Promise<undefined> {
    await this.deps.x402Settlements.finish(row.id, { status: 'pending' });
    return undefined;
  }

  private async finish(row: UnfinishedSettlement, outcome: SettlementOutcome, result: FollowedResult): Promise<FollowedResult | undefined> {
    if (!(await this.deps.x402Settlements.finish(row.id, outcome))) return undefined;
    this.deps.x402Metrics.settlementFollowed(row, result);
    if (result === 'dropped') this.deps.logger.warn({ settlement: row.id, tx: row.txHash, chain: row.chain, network: row.network }, 'x402 settlement dropped');
    return result;
  }

  private minedNonceOf(transfers: AuthorizedTransfers, row: UnfinishedSettlement, minedNonces: Map<string, Promise<bigint>>): Promise<bigint> {
    const key = `${row.chain}:${row.network}:${row.gasAddress}`;
    let nonce = minedNonces.get(key);
    if (!nonce) {
      nonce = transfers.minedNonce(row.gasAddress!);
      // A failed read is not kept: the next row of the wallet asks again.
      nonce.catch(() => minedNonces.delete(key));
      minedNonces.set(key, nonce);
    }
    return nonce;
  }
}
