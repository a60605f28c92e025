import { readFile } from 'node:fs/promises';
import type { X402Config } from '../config.js';
import type { FacilitatorRequest, SettleResponse, SupportedResponse, VerifyResponse } from '../protocol/messages.js';
import { X402_REASONS } from '../protocol/reasons.js';

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** Longest answer read from a facilitator: its messages are a few hundred bytes. */
const MAX_ANSWER_BYTES = 65_536;

/** Why a facilitator's answer cannot be used: it did not answer, or answered no protocol message. */
export class ExternalFacilitatorError extends Error {
  override readonly name = 'ExternalFacilitatorError';
}

/**
 * An external x402 facilitator (`plugins.x402.facilitator`): the settlement mode of an operator who
 * holds no key. The gateway verifies every payment itself first, then asks the facilitator to
 * verify and settle it; a facilitator that fails or answers what is no protocol message is
 * `unexpected_settle_error` (`unexpected_verify_error`), never a 500. The `Authorization` header
 * comes from `authorizationFile`, read at each call (a rotated credential needs no restart), and
 * is never logged nor put in a message.
 */
export class ExternalFacilitator {
  constructor(private readonly deps: { x402Config: X402Config }) {}

  async verify(request: FacilitatorRequest): Promise<VerifyResponse> {
    try {
      const answer = await this.ask('verify', request);
      if (!isVerifyResponse(answer)) throw new ExternalFacilitatorError(`The facilitator at ${this.origin()} answered /verify with no verify response.`);
      return pick(answer, ['isValid', 'invalidReason', 'invalidMessage', 'payer']);
    } catch (error) {
      return {
        isValid: false,
        invalidReason: X402_REASONS.verify,
        invalidMessage: messageOf(error),
        payer: request.paymentPayload?.payload?.authorization?.from,
      };
    }
  }

  async settle(request: FacilitatorRequest): Promise<SettleResponse> {
    const network = request.paymentRequirements?.network;
    try {
      const answer = await this.ask('settle', request);
      if (!isSettleResponse(answer)) throw new ExternalFacilitatorError(`The facilitator at ${this.origin()} answered /settle with no settle response.`);
      const settled = pick(answer, ['success', 'errorReason', 'errorMessage', 'payer', 'transaction', 'network']);
      return { ...settled, network: settled.network ?? network };
    } catch (error) {
      return {
        success: false,
        errorReason: X402_REASONS.settle,
        errorMessage: messageOf(error),
        transaction: '',
        network,
        payer: request.paymentPayload?.payload?.authorization?.from,
      };
    }
  }

  /** The facilitator's `/supported`; throws `ExternalFacilitatorError` when it does not answer one (the operator's status says so). */
  async supported(): Promise<SupportedResponse> {
    const answer = await this.ask('supported');
    if (!isSupportedResponse(answer)) throw new ExternalFacilitatorError(`The facilitator at ${this.origin()} answered /supported with no supported response.`);
    return {
      kinds: answer.kinds.map((kind) => pick(kind, ['x402Version', 'scheme', 'network', 'extra'])),
      extensions: answer.extensions ?? [],
      signers: answer.signers ?? {},
    };
  }

  private async ask(path: 'verify' | 'settle' | 'supported', body?: FacilitatorRequest): Promise<unknown> {
    const settings = this.deps.x402Config.facilitator;
    if (!settings) throw new ExternalFacilitatorError('No external facilitator is configured (plugins.x402.facilitator).');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    if (settings.authorizationFile) headers['authorization'] = await readAuthorization(settings.authorizationFile);
    let response: Response;
    try {
      response = await fetch(`${withoutTrailingSlashes(settings.url)}/${path}`, {
        method: body ? 'POST' : 'GET',
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
        redirect: 'error',
        signal: AbortSignal.timeout(settings.timeoutSeconds * 1000),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      const cause = ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message) || 'network error';
      throw new ExternalFacilitatorError(
        timedOut
          ? `The facilitator at ${this.origin()} did not answer /${path} within ${settings.timeoutSeconds} s.`
          : `The facilitator at ${this.origin()} could not be reached for /${path} (${cause}).`,
      );
    }
    const text = await readLimited(response, MAX_ANSWER_BYTES);
    let answer: unknown;
    try {
      answer = text === undefined ? undefined : JSON.parse(text);
    } catch {
      answer = undefined;
    }
    // A refusal may come with a non-2xx status and a protocol body (HTTPFacilitatorClient's VerifyError/SettleError): the body decides.
    if (answer === undefined || answer === null || typeof answer !== 'object') {
      throw new ExternalFacilitatorError(`The facilitator at ${this.origin()} answered /${path} with HTTP ${response.status} and no JSON message.`);
    }
    return answer;
  }

  /** The facilitator's origin (no path, no credentials in the URL) for messages. */
  private origin(): string {
    try {
      return new URL(this.deps.x402Config.facilitator?.url ?? '').origin;
    } catch {
      return 'the configured URL';
    }
  }
}

async function readAuthorization(file: string): Promise<string> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    throw new ExternalFacilitatorError(`The facilitator authorization file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  // A header value takes no line breaks or control characters; saying which would show the secret.
  if (text.length === 0 || text.length > 8192 || [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    throw new ExternalFacilitatorError(`The facilitator authorization file ${file} holds no single-line header value.`);
  }
  return text;
}

/** The body's text, or undefined when it is longer than `limit` bytes. */
async function readLimited(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

function messageOf(error: unknown): string {
  return error instanceof ExternalFacilitatorError ? error.message : 'The facilitator could not be asked.';
}

type Json = Record<string, unknown>;
const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

function isVerifyResponse(value: unknown): value is VerifyResponse {
  const v = value as Json;
  return (
    typeof v.isValid === 'boolean' &&
    optionalString(v.invalidReason) &&
    optionalString(v.invalidMessage) &&
    optionalString(v.payer) &&
    (v.isValid || typeof v.invalidReason === 'string')
  );
}

function isSettleResponse(value: unknown): value is SettleResponse {
  const v = value as Json;
  if (typeof v.success !== 'boolean' || typeof v.transaction !== 'string') return false;
  if (!optionalString(v.errorReason) || !optionalString(v.errorMessage) || !optionalString(v.payer) || !optionalString(v.network)) return false;
  // A transaction named must be one (its receipt is what the gateway then waits for); a success names one, a refusal a reason.
  if (v.transaction !== '' && !TX_HASH.test(v.transaction)) return false;
  return v.success ? v.transaction !== '' : typeof v.errorReason === 'string';
}

function isSupportedResponse(value: unknown): value is SupportedResponse {
  const v = value as Json;
  return (
    Array.isArray(v.kinds) &&
    v.kinds.every(
      (k: Json) => k !== null && typeof k === 'object' && typeof k.x402Version === 'number' && typeof k.scheme === 'string' && typeof k.network === 'string',
    ) &&
    (v.extensions === undefined || (Array.isArray(v.extensions) && v.extensions.every((e) => typeof e === 'string'))) &&
    (v.signers === undefined || (v.signers !== null && typeof v.signers === 'object' && !Array.isArray(v.signers)))
  );
}

/** The protocol's fields of an answer, nothing else it carried. */
function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}
