import { basicAuthHeader, ProviderError, trimTrailing, type ProviderEndpoint, type ProviderPool } from '@gw/chain-api';

/** What `POST /tx/submit` answered, when the node itself (not the provider) decided. */
export type SubmitAnswer = { readonly accepted: true; readonly txid: unknown } | { readonly accepted: false; readonly message: string };

/**
 * `POST /tx/submit` with the signed transaction's bytes as `application/cbor` (Blockfrost and
 * compatible APIs; the provider pool's JSON requests cannot carry a binary body, so this one
 * request is made here, with the pool's fetch, timeout and the endpoint's headers and auth).
 *
 * 200: accepted, with the provider's answer (the transaction id as a JSON string). 400: the node
 * refused the transaction (its ledger error as `message`): returned, not thrown, because every
 * other provider would refuse it too. A timeout, network error, 429, 5xx or any other status
 * throws a {@link ProviderError}, so the pool tries the next provider.
 */
export async function submitCbor(pool: ProviderPool, endpoint: ProviderEndpoint, cbor: Uint8Array): Promise<SubmitAnswer> {
  const path = '/tx/submit';
  const authorization = await basicAuthHeader(endpoint);
  const timeoutMs = pool.options.timeoutMs;
  let response: Response;
  let body: string;
  try {
    response = await (pool.options.fetch ?? fetch)(trimTrailing(endpoint.url, '/') + path, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/cbor',
        ...(authorization === undefined ? {} : { authorization }),
        ...(endpoint.headers ?? {}),
      },
      body: cbor,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    body = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new ProviderError(
      timedOut ? 'timeout' : 'network',
      endpoint.name,
      `POST ${path}: ${timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message}`,
    );
  }
  if (response.status === 429) throw new ProviderError('rate_limited', endpoint.name, `POST ${path}: 429`);
  if (response.status === 400) return { accepted: false, message: errorMessage(body) };
  if (response.status < 200 || response.status > 299)
    throw new ProviderError('http_error', endpoint.name, `POST ${path}: HTTP ${response.status} ${body.slice(0, 200)}`);
  try {
    return { accepted: true, txid: JSON.parse(body) as unknown };
  } catch {
    throw new ProviderError('malformed', endpoint.name, `POST ${path}: not JSON: ${body.slice(0, 200)}`);
  }
}

/** Blockfrost's error body is `{status_code, error, message}`; anything else is kept as text. */
function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // not JSON: the text itself
  }
  return body.slice(0, 2000);
}

/**
 * The node's refusal when the transaction's inputs are already spent: what a second submission of
 * a transaction already in the mempool or in a block gets (Conway's `All inputs are spent`, older
 * nodes' `BadInputsUTxO`). Whether our own transaction spent them is then asked of the provider.
 */
export function inputsAlreadySpent(message: string): boolean {
  return /All inputs are spent|BadInputsUTxO|already been included/i.test(message);
}
