import { randomBytes } from 'node:crypto';
import { chainErrors, TRANSFER_WITH_AUTHORIZATION_TYPE, treasuryChainErrors, type AccountPlanBuild, type AccountStep, type VerifiedStep } from '@gw/chain-api';
import { getAddress, hexlify, Signature } from 'ethers';
import { parseTypedDataPayload, type TypedDataPayload } from './authorization-payloads.js';
import { EIP3009_ABI } from './eip3009-probe.js';
import { word } from './erc20.js';
import { encodeAggregate3 } from './multicall3.js';
import { depositSigner, formatUnits, transactionStep } from './plan-steps.js';
import { readSubmissionContext, submissionContext } from './submission-context.js';
import { CALLS_PER_SUBMISSION, SUBMISSION_GAS } from './submission-gas.js';
import { requireGas, unitsOf, type SweepState } from './sweep-state.js';

/** How long a signed `transferWithAuthorization` stays valid: a week to sign round 1 offline and submit. */
export const EIP3009_VALIDITY_SECONDS = 7 * 24 * 3600;

/**
 * EIP-3009: round 1, each token address signs a `TransferWithAuthorization` of its whole balance to
 * the destination (EIP-712, a random 32-byte nonce, valid for {@link EIP3009_VALIDITY_SECONDS});
 * round 2 (`continueEip3009`), the gas address submits them through Multicall3's `aggregate3`
 * (`CALLS_PER_SUBMISSION` a transaction), or one transaction each to the token without Multicall3.
 * Only for tokens that implement it (the probe in eip3009-probe.ts). Deposit addresses never need gas.
 */
export function planEip3009(state: SweepState): AccountPlanBuild {
  if (!state.token) throw treasuryChainErrors.treasury_method_unavailable({ message: 'eip3009 moves tokens; the native coin uses native.' });
  if ('unavailable' in state.eip3009) throw treasuryChainErrors.treasury_method_unavailable({ message: `eip3009: ${state.eip3009.unavailable}.` });
  const gas = requireGas(state, 'eip3009');
  const domain = state.eip3009.domain;
  const validBefore = BigInt(state.now + EIP3009_VALIDITY_SECONDS);
  const steps: AccountStep[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  for (const source of state.sources) {
    const units = unitsOf(state, source);
    if (units === 0n || units < state.minUnits) {
      skipped.push({ address: source.address, units, costUnits: 0n });
      continue;
    }
    const payload: TypedDataPayload = {
      domain: { name: domain.name!, version: domain.version!, chainId: state.fees.chainId.toString(), verifyingContract: getAddress(state.token) },
      types: { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPE },
      primaryType: 'TransferWithAuthorization',
      message: {
        from: source.address,
        to: state.destination,
        value: units.toString(),
        validAfter: '0',
        validBefore: validBefore.toString(),
        nonce: hexlify(randomBytes(32)),
      },
    };
    steps.push({
      id: `auth-${source.index}`,
      round: 1,
      stage: 1,
      description: `Authorize the transfer of ${formatUnits(units, state.coinDecimals)} ${state.coin} from ${source.address} to ${state.destination} (EIP-3009)`,
      signer: depositSigner(source, state.accountPath),
      kind: 'authorization',
      unsigned: { format: 'evm-3009-authorization', data: JSON.stringify(payload) },
      nonce: null,
      moves: { [state.coin]: units },
      feeUnits: 0n,
      to: state.destination,
    });
  }
  if (steps.length === 0) throw treasuryChainErrors.treasury_insufficient_value({ message: `No source holds any ${state.coin} to move.` });
  const context = {
    ...submissionContext(state, state.token, gas),
  };
  const submissions = submissionSteps(context, state.coin, state.destination, steps, new Map());
  const fee = submissions.reduce((sum, s) => sum + s.feeUnits, 0n);
  return {
    method: 'eip3009',
    coin: state.coin,
    destination: state.destination,
    steps,
    rounds: 2,
    movedUnits: steps.reduce((sum, s) => sum + s.moves[state.coin]!, 0n),
    feeUnits: fee,
    operatorPaysUnits: fee,
    skipped,
    context: { ...context, submissions: submissions.length },
  };
}

/** Round 2: the gas address's submissions of the verified round-1 signatures. */
export function continueEip3009(build: AccountPlanBuild, signed: readonly VerifiedStep[]): AccountStep[] {
  const signatures = new Map(signed.filter((s) => s.kind === 'authorization').map((s) => [s.stepId, s.signature]));
  for (const step of build.steps) {
    if (!signatures.has(step.id)) throw chainErrors.validation_error({ message: `Round 2 needs the verified authorization of step ${step.id}.` });
  }
  return submissionSteps(build.context, build.coin, build.destination, build.steps, signatures);
}

function submissionSteps(
  context: Readonly<Record<string, string | number | boolean>>,
  coin: string,
  destination: string,
  auths: readonly AccountStep[],
  signatures: ReadonlyMap<string, string>,
): AccountStep[] {
  const { fees, token, multicall3, gasAccount, gasNonce, tokenTransferGas, coinDecimals } = readSubmissionContext(context);
  const callGas = tokenTransferGas + SUBMISSION_GAS.perTransferWithAuthorization + (multicall3 ? SUBMISSION_GAS.perCall : 0n);
  const perSubmission = multicall3 ? CALLS_PER_SUBMISSION : 1;
  let nonce = gasNonce;
  const steps: AccountStep[] = [];
  for (let start = 0; start < auths.length; start += perSubmission) {
    const batch = auths.slice(start, start + perSubmission);
    const calls = batch.map((step) => {
      const { message } = parseTypedDataPayload(step.unsigned.data);
      const signature = Signature.from(signatures.get(step.id) ?? { r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, v: 27 });
      return transferWithAuthorizationData(message, signature);
    });
    const data = multicall3 ? encodeAggregate3(calls.map((callData) => ({ target: token, allowFailure: false, callData }))) : calls[0]!;
    const gasLimit = SUBMISSION_GAS.base + SUBMISSION_GAS.calldataPerByte * BigInt((data.length - 2) / 2) + callGas * BigInt(batch.length);
    const moved = batch.reduce((sum, s) => sum + s.moves[coin]!, 0n);
    steps.push(
      transactionStep({
        id: `submit-${steps.length}`,
        round: 2,
        stage: 1,
        description: `Submit ${batch.length} EIP-3009 transfer${batch.length === 1 ? '' : 's'} of ${formatUnits(moved, coinDecimals)} ${coin} to ${destination}`,
        signer: { kind: 'operator', account: gasAccount },
        fees,
        tx: { nonce: nonce++, to: multicall3 || token, value: 0n, data, gasLimit },
        moves: { [coin]: moved },
        beneficiary: destination,
      }),
    );
  }
  return steps;
}

const TRANSFER_WITH_AUTHORIZATION_SELECTOR = EIP3009_ABI.getFunction('transferWithAuthorization')!.selector;

/**
 * `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)` calldata,
 * written out (a thousand per plan; the ABI coder is slow): plan-calldata.test.ts checks it against the coder.
 */
export function transferWithAuthorizationData(message: TypedDataPayload['message'], signature: Signature): string {
  const words = [
    word(BigInt(message.from)),
    word(BigInt(message.to)),
    word(BigInt(message.value)),
    word(BigInt(message.validAfter)),
    word(BigInt(message.validBefore)),
    word(BigInt(message.nonce)),
    word(signature.v),
    word(BigInt(signature.r)),
    word(BigInt(signature.s)),
  ];
  return `${TRANSFER_WITH_AUTHORIZATION_SELECTOR}${words.join('')}`;
}
