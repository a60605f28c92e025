import { isUlid } from '../ids.js';
import type { CliFlag } from './command.js';

/** A `--<name> <ULID>` flag of an id of `what` ("Project", "Invoice", ...), checked before the command runs. */
export function ulidFlag(what: string, options: { required?: boolean; description?: string } = {}): CliFlag {
  return {
    type: 'string',
    required: options.required ?? true,
    description: options.description ?? `${what} id (ULID).`,
    validate: (v) => (isUlid(v) ? undefined : `must be a ${what.toLowerCase()} id (26-character ULID)`),
  };
}

/** `--limit`: page size of a listing, 1 to 200 (default 50), as the REST API's `limit`. */
export const PAGE_LIMIT_FLAG: CliFlag = {
  type: 'string',
  description: 'Page size, 1 to 200 (default 50).',
  validate: (v) => (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 200 ? undefined : 'must be 1 to 200'),
};

/** `--limit` and `--cursor`: the page of a listing, as the REST API's `limit` and `cursor`. */
export const PAGE_FLAGS: Readonly<Record<'limit' | 'cursor', CliFlag>> = {
  limit: PAGE_LIMIT_FLAG,
  cursor: ulidFlag('Cursor', { required: false, description: 'next_cursor of the previous page (ULID).' }),
};

/** The page that {@link PAGE_FLAGS} ask for, as the list services take it: `limit` (default 50) and `cursor`. */
export function pageFlags(flags: Readonly<Record<string, string | boolean | undefined>>): { limit: number; cursor: string | undefined } {
  return { limit: flags['limit'] ? Number(flags['limit']) : 50, cursor: flags['cursor'] as string | undefined };
}

/** The flags among `names` that the command line gives (a value that is not empty), as strings: for optional inputs of a service. */
export function givenFlags<const N extends string>(flags: Readonly<Record<string, string | boolean | undefined>>, ...names: N[]): Partial<Record<N, string>> {
  const given: Partial<Record<N, string>> = {};
  for (const name of names) if (flags[name]) given[name] = String(flags[name]);
  return given;
}
