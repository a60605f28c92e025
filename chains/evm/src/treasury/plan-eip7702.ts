import { chainErrors, treasuryChainErrors, type AccountPlanBuild, type AccountStep, type VerifiedStep } from '@gw/chain-api';
import { getAddress, Signature, type AuthorizationLike } from 'ethers';
import { authorizationPayload } from './authorization-payloads.js';
import { encodeAggregate3 } from './multicall3.js';
import { depositSigner, formatUnits, transactionStep } from './plan-steps.js';
import { readSubmissionContext, submissionContext } from './submission-context.js';
import { CALLS_PER_SUBMISSION, SUBMISSION_GAS } from './submission-gas.js';
import { requireGas, unitsOf, type SweepState } from './sweep-state.js';
import { delegationCodeOf, TOKEN_SWEEPER_ABI } from './token-sweeper.js';

/**
 * EIP-7702 sweeper: round 1, each token address not yet delegated to the sweeper signs an
 * authorization (chain id, sweeper, its nonce); round 2 (`continueEip7702`), the gas address sends
 * type-4 transactions carrying those authorizations and calling `sweep(token)` on each address
 * (through Multicall3's `aggregate3`, `CALLS_PER_SUBMISSION` a transaction; or one transaction per
 * address straight to it without Multicall3). Addresses already delegated need no authorization;
 * a plan of only such addresses is one round. Deposit addresses never need gas.
 */
export function planEip7702(state: SweepState): AccountPlanBuild {
  if (!state.token) throw treasuryChainErrors.treasury_method_unavailable({ message: 'eip7702 moves tokens; the native coin uses native.' });
  if (!state.network.eip7702) throw treasuryChainErrors.treasury_method_unavailable({ message: `EIP-7702 is not active on ${state.network.id}.` });
  if ('unavailable' in state.sweeper) throw treasuryChainErrors.treasury_method_unavailable({ message: `eip7702: ${state.sweeper.unavailable}.` });
  const gas = requireGas(state, 'eip7702');
  const sweeper = state.sweeper.address;
  const delegated = delegationCodeOf(sweeper);
  const moving: PlannedSource[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  for (const source of state.sources) {
    const units = unitsOf(state, source);
    if (units === 0n || units < state.minUnits) skipped.push({ address: source.address, units, costUnits: 0n });
    else moving.push({ address: source.address, units, authorize: source.code !== delegated, source });
  }
  if (moving.length === 0) throw treasuryChainErrors.treasury_insufficient_value({ message: `No source holds any ${state.coin} to move.` });
  const auths: AccountStep[] = moving
    .filter((m) => m.authorize)
    .map((m) => ({
      id: `auth-${m.source.index}`,
      round: 1,
      stage: 1,
      description: `Delegate ${m.address} to the sweeper ${sweeper} (EIP-7702; it can only send its token balance to ${state.destination})`,
      signer: depositSigner(m.source, state.accountPath),
      kind: 'authorization',
      unsigned: { format: 'evm-7702-authorization', data: authorizationPayload(state.fees.chainId, sweeper, m.source.nonce) },
      nonce: m.source.nonce,
      moves: {},
      feeUnits: 0n,
      to: sweeper,
    }));
  const context = {
    ...submissionContext(state, state.token, gas),
    sweeper,
    sources: moving.map((m) => m.address).join(','),
    units: moving.map((m) => m.units.toString()).join(','),
  };
  const oneRound = auths.length === 0;
  const submissions = submissionSteps(context, state.coin, state.destination, oneRound ? 1 : 2, moving, new Map());
  const fee = submissions.reduce((sum, s) => sum + s.feeUnits, 0n);
  return {
    method: 'eip7702',
    coin: state.coin,
    destination: state.destination,
    steps: oneRound ? submissions : auths,
    rounds: oneRound ? 1 : 2,
    movedUnits: moving.reduce((sum, m) => sum + m.units, 0n),
    feeUnits: fee,
    operatorPaysUnits: fee,
    skipped,
    context: { ...context, submissions: submissions.length },
  };
}

interface SweepSource {
  readonly address: string;
  readonly units: bigint;
  readonly authorize: boolean;
}

interface PlannedSource extends SweepSource {
  readonly source: SweepState['sources'][number];
}

/** Round 2: the gas address's submissions, carrying the verified round-1 authorizations. */
export function continueEip7702(build: AccountPlanBuild, signed: readonly VerifiedStep[]): AccountStep[] {
  const signatures = new Map(signed.filter((s) => s.kind === 'authorization').map((s) => [s.stepId, s.signature]));
  const authorizations = new Map<string, AuthorizationLike>();
  for (const step of build.steps) {
    if (step.unsigned.format !== 'evm-7702-authorization') continue;
    const signature = signatures.get(step.id);
    if (!signature) throw chainErrors.validation_error({ message: `Round 2 needs the verified authorization of step ${step.id}.` });
    const address = getAddress(step.signer.kind === 'deposit' ? step.signer.address : step.signer.account.address);
    authorizations.set(address, {
      address: String(build.context['sweeper']),
      nonce: step.nonce!,
      chainId: BigInt(String(build.context['chainId'])),
      signature: Signature.from(signature),
    });
  }
  const sources = String(build.context['sources']).split(',');
  const units = String(build.context['units']).split(',');
  const moving = sources.map((address, i) => ({ address, units: BigInt(units[i]!), authorize: authorizations.has(address) }));
  return submissionSteps(build.context, build.coin, build.destination, 2, moving, authorizations);
}

function submissionSteps(
  context: Readonly<Record<string, string | number | boolean>>,
  coin: string,
  destination: string,
  round: 1 | 2,
  moving: readonly SweepSource[],
  authorizations: ReadonlyMap<string, AuthorizationLike>,
): AccountStep[] {
  const { fees, token, multicall3, gasAccount, gasNonce, tokenTransferGas, coinDecimals } = readSubmissionContext(context);
  const sweepGas = tokenTransferGas + SUBMISSION_GAS.perCall;
  const perSubmission = multicall3 ? CALLS_PER_SUBMISSION : 1;
  const sweepCall = TOKEN_SWEEPER_ABI.encodeFunctionData('sweep', [token]);
  let nonce = gasNonce;
  const steps: AccountStep[] = [];
  for (let start = 0; start < moving.length; start += perSubmission) {
    const batch = moving.slice(start, start + perSubmission);
    const list = batch.filter((m) => m.authorize).map((m) => authorizations.get(m.address) ?? placeholderAuthorization(context, m.address));
    const to = multicall3 || batch[0]!.address;
    const data = multicall3 ? encodeAggregate3(batch.map((m) => ({ target: m.address, allowFailure: false, callData: sweepCall }))) : sweepCall;
    const gasLimit =
      SUBMISSION_GAS.base +
      SUBMISSION_GAS.calldataPerByte * BigInt((data.length - 2) / 2 + list.length * 110) +
      SUBMISSION_GAS.perAuthorization * BigInt(list.length) +
      sweepGas * BigInt(batch.length);
    const moved = batch.reduce((sum, m) => sum + m.units, 0n);
    steps.push(
      transactionStep({
        id: `submit-${steps.length}`,
        round,
        stage: 1,
        description: `Sweep ${formatUnits(moved, coinDecimals)} ${coin} from ${batch.length} address${batch.length === 1 ? '' : 'es'} to ${destination} through the sweeper${list.length ? ` (carrying ${list.length} delegation${list.length === 1 ? '' : 's'})` : ''}`,
        signer: { kind: 'operator', account: gasAccount },
        fees,
        tx: { nonce: nonce++, to, value: 0n, data, gasLimit, ...(list.length ? { authorizationList: list } : {}) },
        moves: { [coin]: moved },
        beneficiary: destination,
      }),
    );
  }
  return steps;
}

/** Round 1 only counts the submissions' fees: an authorization of the right shape stands in for the signature to come. */
function placeholderAuthorization(context: Readonly<Record<string, string | number | boolean>>, _address: string): AuthorizationLike {
  return {
    address: String(context['sweeper']),
    nonce: 0n,
    chainId: BigInt(String(context['chainId'])),
    signature: Signature.from({ r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, v: 27 }),
  };
}
