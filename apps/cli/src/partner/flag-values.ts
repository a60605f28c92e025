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
