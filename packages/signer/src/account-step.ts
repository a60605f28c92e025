import type { AccountPlanFile } from '@gw/chain-api';
import type { AccountChain } from './account-chains.js';
import type { ReadStep } from './account-plan.js';
import { refuse } from './signer-error.js';

/** A value a step sends, read from its unsigned data. */
export interface StepTransfer {
  /** The recipient, in the chain's display form. */
  readonly to: string;
  /** The coin id: the chain's native coin, or the plan's token (`contract` names the token contract or jetton wallet). */
  readonly coin: string;
  /** Base units; null when the transaction sends the whole balance (the amount is fixed on chain, not here). */
  readonly units: bigint | null;
  readonly contract?: string;
  /**
   * Set on TON that a message carries besides what it pays (the TON attached to a jetton wallet
   * for its fees, the excess the jetton wallet returns): what it is, shown with the transfer. Such a
   * transfer is shown, flagged OWN or EXTERNAL and counted in the totals, but not compared with the
   * summary's `moves` (which counts payments).
   */
  readonly role?: string;
  /** `units` (or the whole balance, when null) is the most it may be, not what it is. */
  readonly upTo?: boolean;
}

/**
 * A step after its unsigned data was decoded and checked against the summary and the secret: what
 * the review shows (read from the data, never from the summary) and how to sign it.
 */
export interface CheckedStep {
  readonly id: string;
  readonly stage: number;
  readonly kind: 'transaction' | 'authorization';
  readonly format: string;
  readonly signer: { readonly address: string; readonly path: string; readonly who: string; readonly keyOrigin?: string };
  readonly transfers: readonly StepTransfer[];
  /** Addresses the step gives something other than coins (a TRON energy delegation's receiver): flagged OWN or EXTERNAL like recipients. */
  readonly parties?: readonly { readonly address: string; readonly what: string }[];
  /** Other facts read from the data: chain id, nonce, fee, expiry, calls, delegations. */
  readonly details: readonly string[];
  readonly notes: readonly string[];
  /** Native base units the step may pay in fees at most, as read from the data (null where the data does not fix it). */
  readonly feeUnits: bigint | null;
  /** EVM: the step deploys the token sweeper (its creation code checked) for this destination, at this address. */
  readonly sweeperDeployment?: { readonly destination: string; readonly contract: string };
  /** The step's signed form (see the README's "Signed forms"). */
  readonly sign: () => string;
}

/** What a chain's step reader gets besides the step. */
export interface StepContext {
  readonly plan: AccountPlanFile;
  readonly chain: AccountChain;
  readonly where: string;
  /** The chain's address equality. */
  readonly sameAddress: (a: string, b: string) => boolean;
  /** Token contracts (jetton masters) the operator allowed although the signer does not list them (`--allow-unlisted-token`). */
  readonly allowUnlistedTokens: readonly string[];
  /** The unlisted token contracts the plan's steps use (all of them allowed), collected for the review. */
  readonly unlistedUsed: Set<string>;
}

export function signerWho(read: ReadStep): string {
  const { signer } = read.step;
  return signer.kind === 'deposit' ? 'deposit address' : `operator ${signer.role ?? ''} account`.replace('  ', ' ');
}

/**
 * The summary's `moves` against what the data sends: for every coin either side names, the same
 * base units (an absent coin is 0). Coins in `unfixed` (sent as "the whole balance") are not compared.
 */
export function checkMoves(read: ReadStep, transfers: readonly StepTransfer[], where: string, unfixed: ReadonlySet<string> = new Set()): void {
  const sums = new Map<string, bigint>();
  for (const transfer of transfers) {
    if (transfer.units === null || transfer.role !== undefined) continue;
    sums.set(transfer.coin, (sums.get(transfer.coin) ?? 0n) + transfer.units);
  }
  for (const coin of new Set([...sums.keys(), ...read.moves.keys()])) {
    if (unfixed.has(coin)) continue;
    const data = sums.get(coin) ?? 0n;
    const summary = read.moves.get(coin) ?? 0n;
    if (data !== summary) refuse('plan_mismatch', `${where}: the summary says it moves ${summary} ${coin}; its transaction moves ${data}.`);
  }
}

/**
 * The summary's `to` must be one of the places the data sends value or calls (compared by `same`);
 * a step that sends to several (a TON top-up batch: one external, a message per subwallet) names them
 * comma-separated, and each must be one.
 */
export function checkTo(read: ReadStep, candidates: readonly string[], same: (a: string, b: string) => boolean, where: string): void {
  const named = read.step.to.split(',');
  if (!named.every((to) => candidates.some((candidate) => same(candidate, to)))) {
    refuse('plan_mismatch', `${where}: the summary says it goes to ${read.step.to}; its data goes to ${candidates.length ? candidates.join(', ') : 'nobody'}.`);
  }
}

/** The step's nonce in the summary against the data's. */
export function checkNonce(read: ReadStep, nonce: bigint, where: string, name = 'nonce'): void {
  if (read.nonce !== nonce) refuse('plan_mismatch', `${where}: the summary says ${name} ${read.nonce ?? 'none'}; its data has ${name} ${nonce}.`);
}

/**
 * The coin a token transfer through `contract` (token contract, or TON jetton master) moves: the
 * plan's coin, which must then be a token whose contract on the plan's network is `contract` in the
 * signer's own table (ACCOUNT_CHAINS' `tokens`). A coin or network the table does not list (an
 * operator's test token) is signed only when `contract` is allowed by `--allow-unlisted-token`.
 */
export function tokenCoin(ctx: StepContext, where: string, contract: string): string {
  const { plan, chain } = ctx;
  if (plan.coin === chain.native.id) refuse('plan_mismatch', `${where}: it moves a token; the plan moves ${chain.native.id}.`);
  const listed = chain.tokens[plan.coin]?.[plan.network];
  if (listed !== undefined) {
    if (!ctx.sameAddress(listed, contract))
      refuse('plan_mismatch', `${where}: the token contract ${contract} is not ${plan.coin}'s on ${plan.network}, ${listed}.`);
    return plan.coin;
  }
  if (!ctx.allowUnlistedTokens.some((allowed) => ctx.sameAddress(allowed, contract)))
    refuse(
      'unsupported',
      `${where}: unlisted token contract ${contract}: the signer lists no ${plan.coin} contract on ${plan.network}; sign it only if it is yours, with --allow-unlisted-token ${contract}.`,
    );
  ctx.unlistedUsed.add(contract);
  return plan.coin;
}

/** An ISO 8601 time from seconds since 1970, for expiry lines; the raw number when it is no date. */
export function timeOf(seconds: bigint): string {
  return seconds < 0n || seconds > 253402300799n ? `${seconds} (no date)` : new Date(Number(seconds) * 1000).toISOString();
}

/** What a step reader reads from the data; the rest of a checked step is the summary's as is. */
export type StepReading = Omit<CheckedStep, 'signer' | 'id' | 'stage' | 'kind' | 'format'>;

/** A checked step: the summary's id, stage, kind and format, with what the reader read from the data. */
export function checkedStep(read: ReadStep, reading: StepReading): Omit<CheckedStep, 'signer'> {
  return { id: read.step.id, stage: read.step.stage, kind: read.step.kind, format: read.step.unsigned.format, ...reading };
}
