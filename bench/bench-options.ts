import { parseArgs } from 'node:util';

/** What {@link benchOptions} answers: a number for a number default, a string for a string one, maybe nothing without one. */
export type BenchOptionValues<T> = { [K in keyof T]: T[K] extends number ? number : T[K] extends string ? string : string | undefined };

/**
 * A benchmark's command-line options (`--seconds 15`), each named with its default: an option with
 * a number default is read as a number, one with a string default as a string, one with `undefined`
 * may be absent. An unknown option stops the run (node's `parseArgs`).
 */
export function benchOptions<T extends Record<string, number | string | undefined>>(defaults: T): BenchOptionValues<T> {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, { type: 'string' as const, ...(value === undefined ? {} : { default: String(value) }) }]),
  );
  const { values } = parseArgs({ options });
  return Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, typeof value === 'number' ? Number(values[name]) : values[name]]),
  ) as BenchOptionValues<T>;
}
