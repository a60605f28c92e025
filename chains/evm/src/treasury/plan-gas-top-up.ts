import { treasuryChainErrors, type AccountPlanBuild, type AccountStep } from '@gw/chain-api';
import { transferData } from './erc20.js';
import { planContext } from './plan-native.js';
import { depositSigner, formatUnits, operatorSigner, transactionStep } from './plan-steps.js';
import { requireGas, unitsOf, type SweepState } from './sweep-state.js';

/** Gas of a top-up to a plain account; one whose code is an EIP-7702 delegation runs its `receive` (cold access of the delegate, a little code). */
const TOP_UP_GAS = 21_000n;
const TOP_UP_GAS_DELEGATED = 30_000n;

/**
 * Tokens with gas top-up, all signed in round 1 (every nonce is known at build): stage 1, the gas
 * address sends each token address exactly the native coin its transfer lacks (gas limit × max
 * fee − its native balance; nothing to an address that already has it); stage 2, each address
 * transfers its whole token balance to the destination. What the block does not charge of the
 * transfer's maximum fee stays in the address as native dust.
 */
export function planGasTopUp(state: SweepState): AccountPlanBuild {
  if (!state.token) throw treasuryChainErrors.treasury_method_unavailable({ message: 'gas_top_up moves tokens; the native coin uses native.' });
  const gas = requireGas(state, 'gas_top_up');
  const transferFee = state.tokenTransferGas * state.fees.maxFeePerGas;
  const topUps: AccountStep[] = [];
  const transfers: AccountStep[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  let moved = 0n;
  let operatorPays = 0n;
  let fees = 0n;
  let gasNonce = gas.nonce;
  for (const source of state.sources) {
    const units = unitsOf(state, source);
    const lacking = transferFee > source.native ? transferFee - source.native : 0n;
    if (units === 0n || units < state.minUnits) {
      skipped.push({ address: source.address, units, costUnits: transferFee + lacking });
      continue;
    }
    if (lacking > 0n) {
      const topUpGas = source.code && source.code !== '0x' ? TOP_UP_GAS_DELEGATED : TOP_UP_GAS;
      const step = transactionStep({
        id: `topup-${source.index}`,
        round: 1,
        stage: 1,
        description: `Top up ${formatUnits(lacking, state.nativeDecimals)} ${state.nativeCoin} to ${source.address} for its ${state.coin} transfer`,
        signer: operatorSigner(gas.account),
        fees: state.fees,
        tx: { nonce: gasNonce++, to: source.address, value: lacking, data: '0x', gasLimit: topUpGas },
        moves: { [state.nativeCoin]: lacking },
      });
      topUps.push(step);
      operatorPays += lacking + step.feeUnits;
      fees += step.feeUnits;
    }
    moved += units;
    fees += transferFee;
    transfers.push(
      transactionStep({
        id: `transfer-${source.index}`,
        round: 1,
        stage: 2,
        description: `Send ${formatUnits(units, state.coinDecimals)} ${state.coin} from ${source.address} to ${state.destination}`,
        signer: depositSigner(source, state.accountPath),
        fees: state.fees,
        tx: { nonce: source.nonce, to: state.token, value: 0n, data: transferData(state.destination, units), gasLimit: state.tokenTransferGas },
        moves: { [state.coin]: units },
        beneficiary: state.destination,
      }),
    );
  }
  if (transfers.length === 0) throw treasuryChainErrors.treasury_insufficient_value({ message: `No source holds any ${state.coin} to move.` });
  const needed = topUps.reduce((sum, step) => sum + step.moves[state.nativeCoin]! + step.feeUnits, 0n);
  if (needed > gas.native)
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The gas account ${gas.account.address} holds ${gas.native} base units of ${state.nativeCoin}; the top-ups need ${needed}.`,
    });
  return {
    method: 'gas_top_up',
    coin: state.coin,
    destination: state.destination,
    steps: [...topUps, ...transfers],
    rounds: 1,
    movedUnits: moved,
    feeUnits: fees,
    operatorPaysUnits: operatorPays,
    skipped,
    context: { ...planContext(state), token: state.token },
  };
}
