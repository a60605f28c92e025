import type { SignerChain } from './chains.js';

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
  /** `own`: the full path the address was derived at from the secret (and checked); null: external. */
  readonly outputs: readonly { readonly address: string; readonly amountUnits: bigint; readonly own: string | null }[];
  readonly feeUnits: bigint;
  /** As the plan states it, base units per size unit. */
  readonly feeRate: string;
  readonly sizeUnit: string;
  /** Notes the operator should read (an unknown fingerprint, …). */
  readonly warnings: readonly string[];
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

/** The text printed before signing: every input, every output (own or EXTERNAL), the fee and its share. */
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
    lines.push(`  #${i}  ${output.address}  ${formatAmount(output.amountUnits, chain)}`);
    lines.push(
      output.own === null
        ? '       !!! EXTERNAL: this address does NOT belong to the secret; check it character by character !!!'
        : `       OWN at ${output.own} (derived from the secret and checked)`,
    );
  });
  lines.push(
    '',
    `Total in:  ${formatAmount(totalIn, chain)}`,
    `Fee:       ${formatAmount(review.feeUnits, chain)}, ${formatShare(review.feeUnits, totalIn)} of the value; rate ${review.feeRate} ${chain.unit}/${review.sizeUnit}`,
  );
  if (review.feeUnits * 10_000n > totalIn * HIGH_FEE_BASIS_POINTS) {
    lines.push(`!!! The fee is more than ${HIGH_FEE_BASIS_POINTS / 100n}% of the value moved !!!`);
  }
  for (const warning of review.warnings) lines.push(`Note: ${warning}`);
  return `${lines.join('\n')}\n`;
}
