import test from 'ava';
import { getCreateAddress, Transaction, Wallet } from 'ethers';
import { sweeperDeploymentPlan, sweeperDeploymentStep, SWEEPER_DEPLOYMENT_GAS } from './sweeper-deployment.js';
import { tokenSweeperInitCode } from './token-sweeper.js';

const fees = { chainId: 11155111n, maxFeePerGas: 30_000_000_123n, maxPriorityFeePerGas: 1_000_000n };
const gasWallet = Wallet.createRandom();
const gas = { role: 'gas' as const, address: gasWallet.address.toLowerCase(), path: "m/44'/60'/1'/0/0" };
const destination = Wallet.createRandom().address;

test('the deployment step: round 1, stage 0, an unsigned creation of the sweeper for the destination, from the gas account at its nonce', (t) => {
  const { step, contract } = sweeperDeploymentStep({ fees, gas, nonce: 42n, destination });
  t.is(contract, getCreateAddress({ from: gasWallet.address, nonce: 42 }));
  t.like(step, { id: 'deploy-sweeper', round: 1, stage: 0, kind: 'transaction', nonce: 42n, to: contract, moves: {} });
  t.deepEqual(step.signer, { kind: 'operator', account: { ...gas, address: gasWallet.address } });
  t.is(step.feeUnits, SWEEPER_DEPLOYMENT_GAS * fees.maxFeePerGas);
  const tx = Transaction.from(step.unsigned.data);
  t.is(step.unsigned.format, 'evm-tx');
  t.like(tx, { type: 2, chainId: fees.chainId, nonce: 42, to: null, value: 0n, gasLimit: SWEEPER_DEPLOYMENT_GAS, signature: null });
  t.is(tx.data, tokenSweeperInitCode(destination));
  t.regex(step.description, new RegExp(destination));
});

test('the deployment plan: method sweeper_deployment, moves nothing, the operator pays its fee, context names the contract', (t) => {
  const plan = sweeperDeploymentPlan({ fees, gas, nonce: 0n, destination: destination.toLowerCase(), nativeCoin: 'eth' });
  t.like(plan, { method: 'sweeper_deployment', coin: 'eth', destination, rounds: 1, movedUnits: 0n, skipped: [] });
  t.is(plan.operatorPaysUnits, plan.feeUnits);
  t.is(plan.context['sweeper'], getCreateAddress({ from: gasWallet.address, nonce: 0 }));
  t.is(plan.context['chainId'], '11155111');
});
