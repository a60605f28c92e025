import { ProviderError } from '@gw/chain-api';

/** Reviver context of `JSON.parse` (source text access, Node 21+); not yet in TypeScript's lib. */
interface ReviverContext {
  readonly source?: string;
}

/**
 * Parses a java-tron HTTP API body, keeping every `amount` field as the exact digits the node wrote.
 * The node prints sun amounts as bare JSON numbers, and a value above 2^53 would lose digits as a
 * JavaScript number, so the reviver takes the source text instead. A body that is not JSON is a
 * `malformed` answer (the pool tries the next provider).
 */
export function parseExactJson(body: string, what: string): unknown {
  try {
    return JSON.parse(body, function (this: unknown, key: string, value: unknown, context?: ReviverContext): unknown {
      if (key === 'amount' && typeof value === 'number' && context?.source !== undefined) return context.source;
      return value;
    } as (this: unknown, key: string, value: unknown) => unknown);
  } catch {
    throw new ProviderError('malformed', '', `${what}: not JSON: ${body.slice(0, 200)}`);
  }
}
