/**
 * The x402 protocol's messages, version 2 (coinbase/x402 `specs/x402-specification-v2.md`, the
 * `exact` scheme on EVM in `specs/schemes/exact/scheme_exact_evm.md`). Amounts are decimal strings
 * of base units on the wire, as the protocol writes them.
 */
import type { TransferAuthorizationJson } from '@gw/kernel';

/** The protocol version this gateway speaks. v1 (`X-PAYMENT`, names such as `base-sepolia`) is not served. */
export const X402_VERSION = 2;

/** A CAIP-2 network id: `eip155:<chain id>`. */
export type CaipNetwork = `${string}:${string}`;

/** What is being paid for. */
export interface ResourceInfo {
  readonly url: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One way to pay (`accepts[i]`). For `exact` on EVM, `extra` holds the token's EIP-712 `name` and `version`. */
export interface PaymentRequirements {
  readonly scheme: 'exact';
  readonly network: CaipNetwork;
  /** The token contract. */
  readonly asset: string;
  /** Base units, decimal string. */
  readonly amount: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly extra: { readonly name: string; readonly version: string; readonly [key: string]: unknown };
}

/** The 402 answer's content (header `PAYMENT-REQUIRED`, base64 of its JSON). */
export interface PaymentRequired {
  readonly x402Version: number;
  readonly error?: string;
  readonly resource: ResourceInfo;
  readonly accepts: readonly PaymentRequirements[];
  readonly extensions?: Record<string, unknown>;
}

/** EIP-3009 authorization as the payload carries it: every number a decimal string, `nonce` 0x + 64 hex. */
export type ExactEvmAuthorization = TransferAuthorizationJson;

/** The client's payment (header `PAYMENT-SIGNATURE`, base64 of its JSON; MCP: `_meta["x402/payment"]`, the object itself). */
export interface PaymentPayload {
  readonly x402Version: number;
  readonly resource?: ResourceInfo;
  /** The requirement the client chose, copied from `accepts`. */
  readonly accepted: PaymentRequirements;
  readonly payload: { readonly signature: string; readonly authorization: ExactEvmAuthorization };
  readonly extensions?: Record<string, unknown>;
}

/** A facilitator's `POST /verify` and `POST /settle` body. */
export interface FacilitatorRequest {
  readonly x402Version: number;
  readonly paymentPayload: PaymentPayload;
  readonly paymentRequirements: PaymentRequirements;
}

export interface VerifyResponse {
  readonly isValid: boolean;
  readonly invalidReason?: string;
  readonly invalidMessage?: string;
  readonly payer?: string;
}

/** Header `PAYMENT-RESPONSE` (base64 of its JSON) and `POST /settle`'s answer; `transaction` is "" on failure. */
export interface SettleResponse {
  readonly success: boolean;
  readonly errorReason?: string;
  readonly errorMessage?: string;
  readonly payer?: string;
  readonly transaction: string;
  readonly network: CaipNetwork;
}

/** `GET /supported`. */
export interface SupportedResponse {
  readonly kinds: readonly { readonly x402Version: number; readonly scheme: string; readonly network: CaipNetwork; readonly extra?: Record<string, unknown> }[];
  readonly extensions: readonly string[];
  readonly signers: Readonly<Record<string, readonly string[]>>;
}

/** HTTP header names (case-insensitive on the wire). */
export const X402_HEADERS = {
  required: 'PAYMENT-REQUIRED',
  signature: 'PAYMENT-SIGNATURE',
  response: 'PAYMENT-RESPONSE',
} as const;

/** MCP `_meta` keys (`specs/transports-v2/mcp.md`). */
export const X402_MCP_META = {
  payment: 'x402/payment',
  response: 'x402/payment-response',
} as const;

/** The CAIP-2 id of an EVM chain id. */
export function eip155(chainId: number | bigint): CaipNetwork {
  return `eip155:${chainId}`;
}
