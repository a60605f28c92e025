import type { PlanFile } from '@gw/chain-api';
import type { SignerChain } from './chains.js';
import { printableLines } from './printable.js';
import type { PlanAmounts } from './read-plan.js';

/**
 * What a plan's transaction does, read from the transaction itself after it was checked against
 * the plan's summary: the signer shows this, and only this, before it signs.
 */
export interface Review {
  readonly chain: SignerChain;
  readonly network: string;
  readonly planId: string;
  readonly kind: string;
  readonly txid: string;
  readonly inputs: readonly { readonly address: string; readonly amountUnits: bigint; readonly path: string }[];
  /**
   * `own`: the full path the address was derived at from the secret (and checked); null: external.
   * `scriptType`: what the output script is (`P2WPKH`, `P2TR`, …), where the chain has several.
   */
  readonly outputs: readonly { readonly address: string; readonly amountUnits: bigint; readonly own: string | null; readonly scriptType?: string }[];
  readonly feeUnits: bigint;
  /** As the plan states it, base units per size unit. */
  readonly feeRate: string;
  /** The transaction's size once signed, computed by the signer (null where the fee does not follow from a rate, Cardano). */
  readonly size: number | null;
  readonly sizeUnit: string;
  /** When the transaction may be included (Cardano's validity interval); null where the signer refuses any restriction. */
  readonly validity: string | null;
  /** Notes the operator should read (an unknown fingerprint, …). */
  readonly warnings: readonly string[];
}

/** What a chain's reader read from the transaction; the rest of the review is the plan's (checked against it) as is. */
export type TransactionReading = Omit<Review, 'chain' | 'network' | 'planId' | 'kind' | 'inputs' | 'feeRate'>;

/** The review of `plan`: its chain, network, id, kind, fee rate and inputs with their amounts, and what the reader read. */
export function planReview(chain: SignerChain, plan: PlanFile, amounts: PlanAmounts, reading: TransactionReading): Review {
  return {
    chain,
    network: plan.network,
    planId: plan.plan_id,
    kind: plan.kind,
    inputs: plan.inputs.map((input, i) => ({ address: input.address, amountUnits: amounts.inputs[i]!, path: input.path })),
    feeRate: plan.fee_rate,
    ...reading,
  };
}

/** A fee above this share of the value moved is pointed out. */
const HIGH_FEE_BASIS_POINTS = 500n;

/** `0.00120000 BTC (120000 sat)`. */
export function formatAmount(units: bigint, chain: SignerChain): string {
  const digits = units.toString().padStart(chain.decimals + 1, '0');
  const coins = `${digits.slice(0, -chain.decimals)}.${digits.slice(-chain.decimals)}`;
  return `${coins} ${chain.symbol} (${units} ${chain.unit})`;
}

/** `1.25%`: `part` as a share of `whole`, rounded up to a hundredth of a percent. */
export function formatShare(part: bigint, whole: bigint): string {
  if (whole === 0n) return 'n/a';
  const hundredths = (part * 10_000n + whole - 1n) / whole;
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}%`;
}

/** `12.34`: base units per size unit, to a hundredth, rounded down. */
function formatRate(fee: bigint, size: number): string {
  const hundredths = (fee * 100n) / BigInt(size);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/** A decimal rate (`2`, `0.5`) in hundredths, rounded down; null when it is not one. */
function hundredthsOf(rate: string): bigint | null {
  const match = /^(\d{1,30})(?:\.(\d+))?$/.exec(rate);
  return match ? BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0').slice(0, 2)) : null;
}

/**
 * The text printed before signing: every input, every output (own or EXTERNAL, with its script
 * type), the fee with its share and the rate computed from the transaction's size (the plan's
 * claim beside it when it differs), and the notes. Every line is made printable: nothing in a plan
 * reaches the terminal as a control character.
 */
export function formatReview(review: Review): string {
  const { chain } = review;
  const totalIn = review.inputs.reduce((sum, input) => sum + input.amountUnits, 0n);
  const lines = [
    `Plan ${review.planId} (${review.kind}): ${chain.name} (${chain.id}) on ${review.network}`,
    `Transaction ${review.txid}`,
    '',
    `Inputs (${review.inputs.length}), each key derived from the secret and checked against the address:`,
    ...review.inputs.map((input, i) => `  #${i}  ${input.address}  ${formatAmount(input.amountUnits, chain)}  key ${input.path}`),
    '',
    `Outputs (${review.outputs.length}):`,
  ];
  review.outputs.forEach((output, i) => {
    lines.push(`  #${i}  ${output.address}  ${formatAmount(output.amountUnits, chain)}${output.scriptType ? `  ${output.scriptType}` : ''}`);
    lines.push(
      output.own === null
        ? '       !!! EXTERNAL: this address does NOT belong to the secret; check it character by character !!!'
        : `       OWN at ${output.own} (derived from the secret and checked)`,
    );
  });
  const rate =
    review.size === null
      ? `rate ${review.feeRate} ${chain.unit}/${review.sizeUnit} (as the plan states it)`
      : `rate ${formatRate(review.feeUnits, review.size)} ${chain.unit}/${review.sizeUnit} for ${review.size} ${review.sizeUnit} (computed from the transaction)`;
  lines.push(
    '',
    `Total in:  ${formatAmount(totalIn, chain)}`,
    `Fee:       ${formatAmount(review.feeUnits, chain)}, ${formatShare(review.feeUnits, totalIn)} of the value; ${rate}`,
  );
  if (review.validity !== null) lines.push(`Valid:     ${review.validity}`);
  if (review.feeUnits * 10_000n > totalIn * HIGH_FEE_BASIS_POINTS) {
    lines.push(`!!! The fee is more than ${HIGH_FEE_BASIS_POINTS / 100n}% of the value moved !!!`);
  }
  if (review.size !== null) {
    const computed = (review.feeUnits * 100n) / BigInt(review.size);
    const stated = hundredthsOf(review.feeRate);
    const gap = stated === null ? null : stated > computed ? stated - computed : computed - stated;
    // A hundredth of the rate is rounding; a plan that pays for a parent (CPFP) or a replacement legitimately differs, and says so here.
    if (gap === null || (gap > 1n && gap * 100n > computed)) {
      lines.push(
        `Note: the plan states a fee rate of ${review.feeRate} ${chain.unit}/${review.sizeUnit}; this transaction pays ${formatRate(review.feeUnits, review.size)}.`,
      );
    }
  }
  for (const warning of review.warnings) lines.push(`Note: ${warning}`);
  return `${printableLines(lines)}\n`;
}
