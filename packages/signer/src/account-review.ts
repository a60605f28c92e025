import type { CheckedAccountPlan } from './account-sign.js';
import { printableLines } from './printable.js';

/** `0.001000000 TON (1000000 nanoton)`: native units in coins; a token's in its base units with its coin id. */
function amount(units: bigint | null, coin: string, checked: CheckedAccountPlan): string {
  if (units === null) return `the whole balance of ${coin}`;
  const { native } = checked.chain;
  if (coin !== native.id) return `${units} ${coin} (base units)`;
  const digits = units.toString().padStart(native.decimals + 1, '0');
  return `${digits.slice(0, -native.decimals)}.${digits.slice(-native.decimals)} ${native.symbol} (${units} ${native.unit})`;
}

/**
 * The text printed before an account plan is signed: the plan, then every step with its stage, its
 * signer (derived from the secret and checked), what it sends to whom (OWN when the recipient is
 * one of the plan's signers, otherwise EXTERNAL, loudly) and the facts read from its data; the
 * totals and the notes. Everything is read from the steps' unsigned data, never from the summary,
 * and every line is made printable.
 */
export function formatAccountReview(checked: CheckedAccountPlan): string {
  const { plan, chain } = checked;
  const lines = [
    `Account plan ${plan.plan_id} (${plan.method}, signing round ${plan.round}): ${chain.name} (${chain.id}) on ${plan.network}` +
      (plan.evm_chain_id === null ? '' : `, chain id ${plan.evm_chain_id}`),
    plan.method === 'payout'
      ? `Coin ${plan.coin}; a payout: one transfer per recipient, listed below`
      : `Coin ${plan.coin}; destination ${plan.destination}` + (checked.isOwn(plan.destination) ? ' (OWN)' : ' (EXTERNAL)'),
    `${checked.steps.length} steps, each signer's key derived from the secret and checked against its address:`,
  ];
  const sent = new Map<string, bigint>();
  const maxima: string[] = [];
  let fees = 0n;
  for (const step of checked.steps) {
    lines.push(
      '',
      `Step ${step.id}  stage ${step.stage}  ${step.kind} (${step.format})`,
      `  signer    ${step.signer.address}  ${step.signer.who}, key ${step.signer.path}${step.signer.keyOrigin ? ` (${step.signer.keyOrigin})` : ''}`,
    );
    for (const transfer of step.transfers) {
      const unlisted = transfer.contract !== undefined && checked.unlistedTokens.some((c) => c === transfer.contract);
      lines.push(
        `  sends     ${transfer.upTo ? 'up to ' : ''}${amount(transfer.units, transfer.coin, checked)} to ${transfer.to}` +
          `${transfer.contract ? `  (token ${transfer.contract})` : ''}${transfer.role ? `  [${transfer.role}]` : ''}`,
      );
      if (unlisted) lines.push(`            !!! UNLISTED token contract ${transfer.contract}: allowed by --allow-unlisted-token only !!!`);
      const own = checked.isOwn(transfer.to);
      lines.push(
        own === null
          ? '            !!! EXTERNAL: this address does NOT belong to the secret; check it character by character !!!'
          : `            OWN: ${own} (derived from the secret and checked)`,
      );
      // A maximum (a jetton wallet's excess, part of what the message already carries) is listed apart, never added.
      if (transfer.units !== null && !transfer.upTo) sent.set(transfer.coin, (sent.get(transfer.coin) ?? 0n) + transfer.units);
      else maxima.push(`  up to ${amount(transfer.units, transfer.coin, checked)} to ${transfer.to}${own === null ? ' (EXTERNAL)' : ' (OWN)'}`);
    }
    if (step.transfers.length === 0) lines.push('  sends     nothing itself');
    if (step.sweeperDeployment) {
      const { destination, contract } = step.sweeperDeployment;
      const own = checked.isOwn(destination);
      lines.push(
        `  Deploys the token sweeper; every delegated address's tokens will go to ${destination} (${own === null ? 'EXTERNAL' : 'OWN'})`,
        own === null
          ? '            !!! EXTERNAL: this address does NOT belong to the secret; it is fixed in the contract for good; check it character by character !!!'
          : `            OWN: ${own} (derived from the secret and checked)`,
        `  contract  ${contract}: the sweeper eip7702 plans must name (the signer shows it on every delegation)`,
      );
    }
    for (const party of step.parties ?? []) {
      const own = checked.isOwn(party.address);
      lines.push(
        `  party     ${party.address} ${party.what}`,
        own === null
          ? '            !!! EXTERNAL: this address does NOT belong to the secret; check it character by character !!!'
          : `            OWN: ${own} (derived from the secret and checked)`,
      );
    }
    for (const detail of step.details) lines.push(`  ${detail}`);
    if (step.feeUnits !== null) {
      fees += step.feeUnits;
      lines.push(`  fee       at most ${amount(step.feeUnits, chain.native.id, checked)}`);
    }
  }
  if (plan.method === 'payout') lines.push(...payoutRecipients(checked));
  lines.push('', 'Totals sent by these steps (own addresses included):');
  for (const [coin, units] of sent) lines.push(`  ${amount(units, coin, checked)}`);
  lines.push(...maxima);
  for (const contract of checked.unlistedTokens)
    lines.push(`!!! UNLISTED token contract ${contract}: the signer lists no ${plan.coin} contract on ${plan.network}; check it is yours !!!`);
  lines.push(`Fees at most: ${amount(fees, chain.native.id, checked)} (steps whose data fixes a fee); the plan states ${plan.fee_units}.`);
  for (const step of checked.steps) for (const note of step.notes) lines.push(`Note: ${note}`);
  for (const note of checked.notes) lines.push(`Note: ${note}`);
  return `${printableLines(lines)}\n`;
}

/**
 * A payout's recipients, one line each as read from the steps' data (never from the summary):
 * the step, the amount and the address, flagged EXTERNAL or OWN.
 */
function payoutRecipients(checked: CheckedAccountPlan): string[] {
  const payments = checked.steps.flatMap((step) => step.transfers.filter((t) => t.role === undefined).map((t) => ({ step: step.id, ...t })));
  return [
    '',
    `Payout to ${payments.length} recipient${payments.length === 1 ? '' : 's'}:`,
    ...payments.map(
      (p) => `  ${p.step}: ${p.upTo ? 'up to ' : ''}${amount(p.units, p.coin, checked)} to ${p.to}${checked.isOwn(p.to) === null ? ' (EXTERNAL)' : ' (OWN)'}`,
    ),
  ];
}
