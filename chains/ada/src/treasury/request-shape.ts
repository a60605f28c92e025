import { chainErrors, type BuildRequest, type NativeAsset, type PlanOutput, type SpendInput } from '@gw/chain-api';

/**
 * The shape checks of what the treasury is handed (a build request, a plan's inputs): every field
 * the chain's library would otherwise take as it comes (a JSON number for a bigint, an index that
 * wraps around, a key of another chain) is refused up front with `validation_error`, so a bad
 * request is a 422 and never a plain Error (a 500) from deep inside cardano-serialization-lib.
 */

/** The largest coin value and fee a Cardano transaction encodes (`uint .size 8`). */
export const MAX_LOVELACE = 2n ** 64n - 1n;
/** The largest output index a transaction input names (`uint .size 2` since Conway). */
export const MAX_OUTPUT_INDEX = 65_535;
/** The largest unhardened BIP 32 index: address indexes are unhardened. */
export const MAX_ADDRESS_INDEX = 2 ** 31 - 1;

const HASH = /^[0-9a-f]{64}$/;
/** Blockfrost's asset `unit`: the 28-byte policy id, then an asset name of up to 32 bytes, in hex. */
const ASSET_UNIT = /^[0-9a-f]{56}(?:[0-9a-f]{2}){0,32}$/;

function invalid(message: string): never {
  throw chainErrors.validation_error({ message });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isIndex = (value: unknown, max: number): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max;
const isBranch = (value: unknown): value is 0 | 1 => value === 0 || value === 1;

/** A lovelace amount: a bigint within 0..2^64-1 (and above 0 when `positive`). */
function assertLovelace(value: unknown, what: string, positive = false): asserts value is bigint {
  if (typeof value !== 'bigint') invalid(`${what} must be a bigint of lovelace, not ${typeof value}.`);
  if (value < (positive ? 1n : 0n)) invalid(`${what} must be ${positive ? 'above 0' : 'at least 0'} lovelace, not ${value}.`);
  if (value > MAX_LOVELACE) invalid(`${what} is above 2^64-1 lovelace, the most a Cardano transaction carries.`);
}

function assertPath(branch: unknown, index: unknown, what: string): void {
  if (!isBranch(branch)) invalid(`${what}: branch must be 0 (receive) or 1 (change), not ${String(branch)}.`);
  if (!isIndex(index, MAX_ADDRESS_INDEX)) invalid(`${what}: index must be an integer from 0 to 2^31-1, not ${String(index)}.`);
}

/** The native tokens a plan's input lists, when it lists any (see `SpendInput.assets`). */
function assertAssets(assets: unknown, what: string): asserts assets is readonly NativeAsset[] | undefined {
  if (assets === undefined) return;
  if (!Array.isArray(assets)) invalid(`${what}: assets must be a list.`);
  for (const asset of assets as unknown[]) {
    if (
      !isObject(asset) ||
      typeof asset['unit'] !== 'string' ||
      !ASSET_UNIT.test(asset['unit']) ||
      typeof asset['quantity'] !== 'bigint' ||
      asset['quantity'] <= 0n
    )
      invalid(`${what}: an asset is a policy id and asset name in hex (unit) and a positive bigint quantity.`);
  }
}

/** One input of a plan, as `build` and `verifySigned` take it: outpoint, address, amount, and an ada account key and path. */
export function assertSpendInputShape(input: unknown, position: number): asserts input is SpendInput {
  const what = `Input ${position}`;
  if (!isObject(input)) invalid(`${what} is not an object.`);
  if (typeof input['txHash'] !== 'string' || !HASH.test(input['txHash'])) invalid(`${what}: txHash must be 64 lower-case hex digits.`);
  if (!isIndex(input['outputIndex'], MAX_OUTPUT_INDEX))
    invalid(`${what}: outputIndex must be an integer from 0 to 65535, not ${String(input['outputIndex'])}.`);
  if (typeof input['address'] !== 'string') invalid(`${what}: address must be a string.`);
  assertLovelace(input['amountUnits'], `${what}: amountUnits`, true);
  const key = input['key'];
  if (!isObject(key) || typeof key['canonical'] !== 'string') invalid(`${what}: key must be an account key.`);
  if (key['chain'] !== 'ada') invalid(`${what}: its key belongs to chain ${String(key['chain'])}, not ada.`);
  assertPath(input['branch'], input['index'], what);
  assertAssets(input['assets'], what);
}

function assertOutputShape(output: unknown, position: number): asserts output is PlanOutput {
  const what = `Output ${position}`;
  if (!isObject(output)) invalid(`${what} is not an object.`);
  if (typeof output['address'] !== 'string') invalid(`${what}: address must be a string.`);
  if (output['amountUnits'] !== undefined) assertLovelace(output['amountUnits'], `${what}: amountUnits`);
  const own = output['own'];
  if (own !== undefined) {
    if (!isObject(own)) invalid(`${what}: own must be a branch and an index.`);
    assertPath(own['branch'], own['index'], `${what} (own)`);
  }
}

/** The whole request of `build`: lists of inputs and outputs, bigint fee rate and fee. */
export function assertBuildRequestShape(request: unknown): asserts request is BuildRequest {
  if (!isObject(request)) invalid('A build request is an object.');
  if (!Array.isArray(request['inputs'])) invalid('A build request has a list of inputs.');
  if (!Array.isArray(request['outputs'])) invalid('A build request has a list of outputs.');
  (request['inputs'] as unknown[]).forEach(assertSpendInputShape);
  (request['outputs'] as unknown[]).forEach(assertOutputShape);
  assertLovelace(request['feeRate'], 'feeRate');
  if (request['feeUnits'] !== undefined) assertLovelace(request['feeUnits'], 'feeUnits');
}
