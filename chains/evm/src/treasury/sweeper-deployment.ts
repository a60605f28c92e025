import type { AccountPlanBuild, AccountStep, OperatorAccount } from '@gw/chain-api';
import { getAddress, getCreateAddress } from 'ethers';
import type { FeeMarket } from './fee-market.js';
import { operatorSigner } from './plan-steps.js';
import { tokenSweeperDeployment } from './token-sweeper.js';

/** Gas limit of the sweeper's deployment: under 300,000 used (834 bytes of runtime code at 200 gas a byte, the creation and its calldata). */
export const SWEEPER_DEPLOYMENT_GAS = 400_000n;

/**
 * The step that deploys the EIP-7702 token sweeper for `destination` from the operator's gas
 * account: round 1, stage 0, an unsigned EIP-1559 contract creation whose data is the sweeper's
 * creation code and the ABI-encoded destination, at the gas account's `nonce`. With it, the address
 * the contract will have (the CREATE address of the gas account and that nonce), which is also the
 * step's `to`. Pure.
 */
export function sweeperDeploymentStep(input: {
  readonly fees: FeeMarket;
  readonly gas: OperatorAccount;
  readonly nonce: bigint;
  readonly destination: string;
  readonly gasLimit?: bigint;
}): { readonly step: AccountStep; readonly contract: string } {
  const destination = getAddress(input.destination);
  const gasLimit = input.gasLimit ?? SWEEPER_DEPLOYMENT_GAS;
  const tx = tokenSweeperDeployment({
    chainId: input.fees.chainId,
    nonce: Number(input.nonce),
    destination,
    maxFeePerGas: input.fees.maxFeePerGas,
    maxPriorityFeePerGas: input.fees.maxPriorityFeePerGas,
    gasLimit,
  });
  const signer = operatorSigner(input.gas);
  const from = signer.kind === 'operator' ? signer.account.address : '';
  const contract = getCreateAddress({ from, nonce: input.nonce });
  return {
    contract,
    step: {
      id: 'deploy-sweeper',
      round: 1,
      stage: 0,
      description: `Deploy the token sweeper at ${contract} from the gas account ${from}: every address delegated to it sends its tokens to ${destination}, for good`,
      signer,
      kind: 'transaction',
      unsigned: { format: 'evm-tx', data: tx.unsignedSerialized },
      nonce: input.nonce,
      moves: {},
      feeUnits: gasLimit * input.fees.maxFeePerGas,
      to: contract,
    },
  };
}

/** The one-step plan of a sweeper deployment (`AccountTreasury.buildSweeperDeployment`). Pure. */
export function sweeperDeploymentPlan(input: {
  readonly fees: FeeMarket;
  readonly gas: OperatorAccount;
  readonly nonce: bigint;
  readonly destination: string;
  readonly nativeCoin: string;
}): AccountPlanBuild {
  const { step, contract } = sweeperDeploymentStep(input);
  return {
    method: 'sweeper_deployment',
    coin: input.nativeCoin,
    destination: getAddress(input.destination),
    steps: [step],
    rounds: 1,
    movedUnits: 0n,
    feeUnits: step.feeUnits,
    operatorPaysUnits: step.feeUnits,
    skipped: [],
    context: {
      chainId: input.fees.chainId.toString(),
      maxFeePerGas: input.fees.maxFeePerGas.toString(),
      maxPriorityFeePerGas: input.fees.maxPriorityFeePerGas.toString(),
      sweeper: contract,
      deployer: getAddress(input.gas.address),
      deploymentNonce: input.nonce.toString(),
    },
  };
}
