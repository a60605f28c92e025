import type { PlanFile } from '@gw/chain-api';
import { checkId, fail, isObject, text, units } from './plan-fields.js';

const HEX32 = /^[0-9a-f]{64}$/;

/** A plan's amounts as bigints, beside the plan itself. */
export interface PlanAmounts {
  readonly inputs: readonly bigint[];
  readonly outputs: readonly bigint[];
  readonly fee: bigint;
}

/**
 * Parses a plan file's JSON and checks its shape (packages/chain-api/src/treasury/plan-file.ts):
 * format `gateway-treasury-plan` version 1, amounts as decimal strings, every input and own output
 * naming an account of `accounts`. What the amounts and addresses mean is checked against the
 * embedded transaction later, by the chain's reviewer.
 */
export function readPlan(json: string): { plan: PlanFile; amounts: PlanAmounts } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return fail('The plan file is not JSON.');
  }
  if (!isObject(value) || value['format'] !== 'gateway-treasury-plan') fail('This is not a gateway treasury plan (format "gateway-treasury-plan").');
  if (value['version'] !== 1) fail(`Plan version ${JSON.stringify(value['version'])} is not supported; this signer reads version 1.`);
  const plan = value as unknown as PlanFile;
  checkId(plan.plan_id, 'plan_id');
  text(plan.chain, 'chain');
  text(plan.network, 'network');
  text(plan.coin, 'coin');
  // A payout (issue 37) pays external recipients and its change to an own address: every output is checked and shown like a sweep's.
  if (!['sweep', 'bump', 'accelerate', 'payout'].includes(plan.kind)) fail(`kind ${JSON.stringify(plan.kind)} is not sweep, bump, accelerate or payout.`);
  if (!Array.isArray(plan.accounts) || plan.accounts.length === 0) fail('accounts must list the account keys of the inputs.');
  plan.accounts.forEach((account, i) => {
    if (!isObject(account)) fail(`accounts[${i}] must be an object.`);
    text(account.key, `accounts[${i}].key`);
    text(account.path, `accounts[${i}].path`);
    if (account.fingerprint !== null && (typeof account.fingerprint !== 'string' || !/^[0-9a-fA-F]{8}$/.test(account.fingerprint))) {
      fail(`accounts[${i}].fingerprint must be 8 hex digits or null.`);
    }
  });
  const accountIndex = (n: unknown, where: string): void => {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n >= plan.accounts.length) fail(`${where} must be an index into accounts.`);
  };
  if (!Array.isArray(plan.inputs) || plan.inputs.length === 0) fail('inputs must list at least one input.');
  if (!Array.isArray(plan.outputs) || plan.outputs.length === 0) fail('outputs must list at least one output.');
  const inputs = plan.inputs.map((input, i) => {
    const where = `inputs[${i}]`;
    if (!isObject(input)) fail(`${where} must be an object.`);
    if (typeof input.tx_hash !== 'string' || !HEX32.test(input.tx_hash)) fail(`${where}.tx_hash must be 64 lower-case hex digits.`);
    const index: unknown = input.output_index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > 0xffffffff) fail(`${where}.output_index must be an output index.`);
    text(input.address, `${where}.address`);
    text(input.path, `${where}.path`);
    accountIndex(input.account, `${where}.account`);
    return units(input.amount_units, `${where}.amount_units`);
  });
  const outputs = plan.outputs.map((output, i) => {
    const where = `outputs[${i}]`;
    if (!isObject(output)) fail(`${where} must be an object.`);
    text(output.address, `${where}.address`);
    const destination = output.destination as unknown;
    if (!isObject(destination) || (destination['kind'] !== 'own' && destination['kind'] !== 'external')) {
      fail(`${where}.destination must be {"kind":"own",...} or {"kind":"external"}.`);
    }
    if (destination['kind'] === 'own') {
      accountIndex(destination['account'], `${where}.destination.account`);
      text(destination['path'], `${where}.destination.path`);
    }
    return units(output.amount_units, `${where}.amount_units`);
  });
  const fee = units(plan.fee_units, 'fee_units');
  if (typeof plan.fee_rate !== 'string' || !/^\d+(?:\.\d+)?$/.test(plan.fee_rate)) fail('fee_rate must be a decimal string.');
  if (!isObject(plan.unsigned)) fail('unsigned must carry the unsigned transaction.');
  text(plan.unsigned.data, 'unsigned.data');
  if (typeof plan.unsigned.txid !== 'string' || !HEX32.test(plan.unsigned.txid)) fail('unsigned.txid must be 64 lower-case hex digits.');
  return { plan, amounts: { inputs, outputs, fee } };
}
