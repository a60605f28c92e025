import { PartnerUsageError } from './credentials.js';

/** Parsed flags of a partner command, as `node:util` parseArgs gives them. */
export type FlagValues = Record<string, string | boolean | undefined>;

/** A string flag's value; undefined when it is absent or given as a bare switch. */
export function flagText(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
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
