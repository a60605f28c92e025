import { Counter, type Registry } from 'prom-client';
import type { SettleResponse } from './protocol/messages.js';
import { X402_REASONS } from './protocol/reasons.js';

/** How a settlement ended, as `gateway_x402_settlements_total` counts it. */
export const SETTLEMENT_RESULTS = ['settled', 'pending', 'failed', 'refused', 'replayed'] as const;
export type SettlementResult = (typeof SETTLEMENT_RESULTS)[number];

/** What the follow job found of a settlement left `submitted` or `pending`, as `gateway_x402_settlements_followed_total` counts it. */
export const FOLLOWED_RESULTS = ['settled', 'failed', 'dropped'] as const;
export type FollowedResult = (typeof FOLLOWED_RESULTS)[number];

/**
 * The result of a settlement's answer: `settled` (mined, the transfer logged), `pending` (sent,
 * not mined within `receiptWaitSeconds`), `refused` (the gateway's own refusal before anything was
 * sent: a gas wallet's cap, its balance), `replayed` (the authorization was settled already, here
 * or on chain), `failed` (reverted, a send error, an external facilitator's refusal).
 */
export function settlementResult(response: Pick<SettleResponse, 'success' | 'errorReason'>): SettlementResult {
  if (response.success) return 'settled';
  switch (response.errorReason) {
    case X402_REASONS.pending:
      return 'pending';
    case X402_REASONS.settle:
      return 'refused';
    case X402_REASONS.nonceUsed:
      return 'replayed';
    default:
      return 'failed';
  }
}

/**
 * The x402 plugin's counters (service `x402Metrics`), per process: each instance counts the
 * settlements it ran, so a sum over instances is the deployment's.
 * - `gateway_x402_settlements_total{chain,network,result}`: settlements by result
 *   ({@link SETTLEMENT_RESULTS}); verification failures are not settlements and are not counted.
 * - `gateway_x402_gas_spent_units{chain,network}`: native base units (wei) the gas wallets signed
 *   for (gas limit × max fee per gas of each sent settlement, as their daily cap counts it); an
 *   external facilitator's gas is not ours and is not counted.
 * - `gateway_x402_settlements_followed_total{chain,network,result}`: settlements the follow job
 *   finished after their answer ({@link FOLLOWED_RESULTS}): mined (`settled`, `failed`), or
 *   `dropped` by the node.
 */
export interface X402Metrics {
  readonly settlements: Counter<'chain' | 'network' | 'result'>;
  readonly gasSpent: Counter<'chain' | 'network'>;
  readonly followed: Counter<'chain' | 'network' | 'result'>;
  /** Counts one settlement's answer on the gateway's network. */
  settlement(network: { readonly chain: string; readonly network: string }, response: Pick<SettleResponse, 'success' | 'errorReason'>): void;
  /** Counts one settlement the follow job finished. */
  settlementFollowed(network: { readonly chain: string; readonly network: string }, result: FollowedResult): void;
  /** Counts what a gas wallet signed for in a settlement it sent (gas limit × max fee, wei). */
  gasSigned(network: { readonly chain: string; readonly network: string }, spendUnits: bigint): void;
}

export function createX402Metrics(registry: Registry): X402Metrics {
  const registers = [registry];
  const settlements = new Counter({
    name: 'gateway_x402_settlements_total',
    help: 'x402 settlements this process ran, by result: settled (mined), pending (sent, not mined within receiptWaitSeconds), failed (reverted, send error, external facilitator refusal), refused (a gas wallet cap or balance: nothing sent), replayed (the authorization was settled already).',
    labelNames: ['chain', 'network', 'result'],
    registers,
  });
  const gasSpent = new Counter({
    name: 'gateway_x402_gas_spent_units',
    help: 'Native base units (wei) the x402 gas wallets signed for (gas limit x max fee per gas of each sent settlement, as plugins.x402.gasWallets.<chain>.<network>.maxPerDayUnits counts it). Values above 2^53 lose precision: read it as an order of magnitude.',
    labelNames: ['chain', 'network'],
    registers,
  });
  const followed = new Counter({
    name: 'gateway_x402_settlements_followed_total',
    help: 'x402 settlements left submitted or pending that the follow job (plugins.x402.followCron) finished, by result: settled (mined with the transfer), failed (mined reverted or without it), dropped (the node no longer has it and never mined it).',
    labelNames: ['chain', 'network', 'result'],
    registers,
  });
  return {
    settlements,
    gasSpent,
    followed,
    settlementFollowed: ({ chain, network }, result) => followed.inc({ chain, network, result }),
    settlement: ({ chain, network }, response) => settlements.inc({ chain, network, result: settlementResult(response) }),
    gasSigned: ({ chain, network }, spendUnits) => {
      if (spendUnits > 0n) gasSpent.inc({ chain, network }, Number(spendUnits));
    },
  };
}
