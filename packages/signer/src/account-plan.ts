import type { AccountPlanFile, AccountPlanFileStep } from '@gw/chain-api';
import { ACCOUNT_PLAN_METHODS } from '@gw/chain-api/account-plan-methods';
import { checkId, fail, isObject, text, units } from './plan-fields.js';

const FORMATS = ['evm-tx', 'evm-7702-authorization', 'evm-3009-authorization', 'tron-tx', 'ton-external', 'sol-tx'] as const;

/** One step of an account plan with its amounts as bigints. */
export interface ReadStep {
  readonly step: AccountPlanFileStep;
  readonly nonce: bigint | null;
  readonly moves: ReadonlyMap<string, bigint>;
  readonly feeUnits: bigint;
}

/** Whether a parsed JSON value is an account plan (by its format), for the command to choose its reader. */
export function isAccountPlan(value: unknown): boolean {
  return isObject(value) && value['format'] === 'gateway-treasury-account-plan';
}

/**
 * Checks an account plan file's shape (packages/chain-api/src/treasury/account-plan-file.ts):
 * format `gateway-treasury-account-plan` version 1, amounts as decimal strings, unique step ids of
 * plain characters. What each step's `unsigned` does is decoded and checked against the summary
 * later, by the chain's step reader.
 */
export function readAccountPlan(value: unknown): { plan: AccountPlanFile; steps: ReadStep[]; movedUnits: bigint; feeUnits: bigint } {
  if (!isAccountPlan(value)) fail('This is not a gateway account plan (format "gateway-treasury-account-plan").');
  const plan = value as unknown as AccountPlanFile;
  if (plan.version !== 1) fail(`Account plan version ${JSON.stringify(plan.version)} is not supported; this signer reads version 1.`);
  checkId(plan.plan_id, 'plan_id');
  text(plan.chain, 'chain');
  text(plan.network, 'network');
  text(plan.coin, 'coin');
  text(plan.destination, 'destination');
  if (!(ACCOUNT_PLAN_METHODS as readonly string[]).includes(plan.method))
    fail(`method ${JSON.stringify(plan.method)} is not one of ${ACCOUNT_PLAN_METHODS.join(', ')}.`);
  if (plan.round !== 1 && plan.round !== 2) fail('round must be 1 or 2.');
  if (plan.evm_chain_id !== null && typeof plan.evm_chain_id !== 'number') fail('evm_chain_id must be a number or null.');
  if (plan.sweeper_contract !== undefined && plan.sweeper_contract !== null) text(plan.sweeper_contract, 'sweeper_contract');
  const movedUnits = units(plan.moved_units, 'moved_units');
  const feeUnits = units(plan.fee_units, 'fee_units');
  if (!Array.isArray(plan.steps) || plan.steps.length === 0) fail('steps must list at least one step.');
  const ids = new Set<string>();
  const steps = plan.steps.map((step, i): ReadStep => {
    const where = `steps[${i}]`;
    if (!isObject(step)) fail(`${where} must be an object.`);
    checkId(step.id, `${where}.id`);
    if (ids.has(step.id)) fail(`${where}.id "${step.id}" is not unique.`);
    ids.add(step.id);
    if (typeof step.stage !== 'number' || !Number.isInteger(step.stage) || step.stage < 0) fail(`${where}.stage must be a whole number.`);
    if (step.kind !== 'transaction' && step.kind !== 'authorization') fail(`${where}.kind must be "transaction" or "authorization".`);
    if (typeof step.description !== 'string') fail(`${where}.description must be a string.`);
    const signer = step.signer as unknown;
    if (!isObject(signer) || (signer['kind'] !== 'deposit' && signer['kind'] !== 'operator')) fail(`${where}.signer.kind must be "deposit" or "operator".`);
    text(signer['address'], `${where}.signer.address`);
    text(signer['path'], `${where}.signer.path`);
    if (signer['role'] !== undefined && !['gas', 'funding', 'staking'].includes(signer['role'] as string))
      fail(`${where}.signer.role must be gas, funding or staking.`);
    const unsigned = step.unsigned as unknown;
    if (!isObject(unsigned) || !FORMATS.includes(unsigned['format'] as (typeof FORMATS)[number]))
      fail(`${where}.unsigned.format must be one of ${FORMATS.join(', ')}.`);
    text(unsigned['data'], `${where}.unsigned.data`);
    const authorization = unsigned['format'] === 'evm-7702-authorization' || unsigned['format'] === 'evm-3009-authorization';
    if (authorization !== (step.kind === 'authorization')) fail(`${where}: a ${String(unsigned['format'])} step is not of kind ${step.kind}.`);
    text(step.to, `${where}.to`);
    if (!isObject(step.moves)) fail(`${where}.moves must be an object of base units by coin.`);
    const moves = new Map(Object.entries(step.moves).map(([coin, amount]) => [coin, units(amount, `${where}.moves.${coin}`)]));
    return {
      step: step as unknown as AccountPlanFileStep,
      nonce: step.nonce === null ? null : units(step.nonce, `${where}.nonce`),
      moves,
      feeUnits: units(step.fee_units, `${where}.fee_units`),
    };
  });
  return { plan, steps, movedUnits, feeUnits };
}
