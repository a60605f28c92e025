import { PartnerUsageError } from './credentials.js';

/** Parsed flags of a partner command, as `node:util` parseArgs gives them. */
export type FlagValues = Record<string, string | boolean | undefined>;

/** A string flag's value; undefined when it is absent or given as a bare switch. */
export function flagText(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole-number flag (up to `maxDigits` digits); undefined when absent, a usage error otherwise. */
export function wholeNumberFlag(values: FlagValues, name: string, maxDigits = 9): number | undefined {
  const value = flagText(values, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || value.length > maxDigits) throw new PartnerUsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** A flag that takes one of `choices`; undefined when absent, a usage error for any other value. */
export function choiceFlag<const C extends string>(values: FlagValues, name: string, choices: readonly C[]): C | undefined {
  const value = flagText(values, name);
  if (value !== undefined && !(choices as readonly string[]).includes(value)) throw new PartnerUsageError(`--${name} must be one of ${choices.join(', ')}`);
  return value as C | undefined;
}

/** A `yes`/`no` flag as a boolean; undefined when absent, a usage error for any other value. */
export function yesNoFlag(values: FlagValues, name: string): boolean | undefined {
  const value = flagText(values, name);
  if (value !== undefined && value !== 'yes' && value !== 'no') throw new PartnerUsageError(`--${name} must be yes or no`);
  return value === undefined ? undefined : value === 'yes';
}

/** The page of a list from `--limit` (up to `limitDigits` digits) and `--cursor`: only what is given. */
export function pageFlags(values: FlagValues, limitDigits = 9): { limit?: number; cursor?: string } {
  const limit = wholeNumberFlag(values, 'limit', limitDigits);
  const cursor = flagText(values, 'cursor');
  return { ...(limit !== undefined ? { limit } : {}), ...(cursor ? { cursor } : {}) };
}

/** The SDK's create options from `--idempotency-key`: the key when given, nothing otherwise. */
export function idempotencyOption(values: FlagValues): { idempotencyKey?: string } {
  const key = flagText(values, 'idempotency-key');
  return key === undefined ? {} : { idempotencyKey: key };
}

/** The one positional id of `gateway <kind> <verb> <id>`; a usage error otherwise. */
export function oneId(kind: string, verb: string, positionals: readonly string[]): string {
  if (positionals.length !== 1) throw new PartnerUsageError(`expected: gateway ${kind} ${verb} <id>`);
  return positionals[0]!;
}

/** `--data` parsed as JSON, or undefined when it is absent; a usage error when it is not JSON. */
export function dataFlag(values: FlagValues): unknown {
  const data = flagText(values, 'data');
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data);
  } catch (error) {
    throw new PartnerUsageError(`--data is not JSON: ${(error as Error).message}`);
  }
}
