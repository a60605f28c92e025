import { isAddress } from 'ethers';
import Type, { type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import type { PaymentPayload, PaymentRequirements } from './messages.js';
import { X402_VERSION } from './messages.js';
import { X402_REASONS } from './reasons.js';

/*
 * The x402 v2 messages a client or a partner's server sends (coinbase/x402
 * `specs/x402-specification-v2.md`, `exact` on EVM with EIP-3009), as TypeBox schemas: every string
 * bounded, numbers as the protocol writes them (decimal strings of base units and Unix seconds, hex
 * addresses, nonce and signature). Unknown members are allowed where the protocol lets clients add
 * them (`extra`, `resource`, `extensions`); what the gateway reads is checked.
 */

const ADDRESS = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'An EVM address, 0x and 40 hex digits (any case).' });
/** uint256 as a decimal string: at most 78 digits. */
const UINT = Type.String({ pattern: '^[0-9]{1,78}$', description: 'A non-negative integer, decimal string.' });
const NONCE = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'bytes32: 0x and 64 hex digits.' });
const SIGNATURE = Type.String({ pattern: '^0x[0-9a-fA-F]{130}$', description: 'A 65-byte ECDSA signature (r, s, v): 0x and 130 hex digits.' });
/** CAIP-2: namespace (3 to 8 of [-a-z0-9]) `:` reference (1 to 32 of [-_a-zA-Z0-9]). */
const NETWORK = Type.String({ pattern: '^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$', description: 'A CAIP-2 network id (`eip155:8453`).' });

export const ResourceInfoSchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  mimeType: Type.Optional(Type.String({ maxLength: 200 })),
});

export const PaymentRequirementsSchema = Type.Object({
  scheme: Type.String({ minLength: 1, maxLength: 64 }),
  network: NETWORK,
  asset: ADDRESS,
  amount: UINT,
  payTo: ADDRESS,
  maxTimeoutSeconds: Type.Integer({ minimum: 0, maximum: 31_536_000 }),
  /** `exact` on EVM: the token's EIP-712 domain name and version; clients may add members. */
  extra: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), version: Type.String({ minLength: 1, maxLength: 50 }) }),
});

export const ExactEvmAuthorizationSchema = Type.Object({
  from: ADDRESS,
  to: ADDRESS,
  value: UINT,
  validAfter: UINT,
  validBefore: UINT,
  nonce: NONCE,
});

export const PaymentPayloadSchema = Type.Object({
  x402Version: Type.Integer(),
  resource: Type.Optional(ResourceInfoSchema),
  accepted: PaymentRequirementsSchema,
  payload: Type.Object({ signature: SIGNATURE, authorization: ExactEvmAuthorizationSchema }),
  extensions: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.Unknown())),
});

/** A message that passed its schema; `reason` of the refusal otherwise. */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: typeof X402_REASONS.payload | typeof X402_REASONS.version };

const validators = new WeakMap<TSchema, Validator>();
function check(schema: TSchema, value: unknown): boolean {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  return validator.Check(value);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A client's payment (the decoded `PAYMENT-SIGNATURE`, MCP's `_meta["x402/payment"]`, a facilitator
 * request's `paymentPayload`): `invalid_x402_version` for a version other than 2 (a v1 payment
 * included), `invalid_payload` for anything else that is not the `exact` EVM payload (a mixed-case
 * address with a bad EIP-55 checksum included). Never throws.
 */
export function parsePaymentPayload(value: unknown): Parsed<PaymentPayload> {
  if (!isObject(value)) return { ok: false, reason: X402_REASONS.payload };
  if (typeof value['x402Version'] === 'number' && value['x402Version'] !== X402_VERSION) return { ok: false, reason: X402_REASONS.version };
  if (!check(PaymentPayloadSchema, value)) return { ok: false, reason: X402_REASONS.payload };
  const payment = value as unknown as PaymentPayload;
  const { accepted, payload } = payment;
  // The schema takes any case; a mixed-case address must also carry a valid EIP-55 checksum.
  if (![accepted.asset, accepted.payTo, payload.authorization.from, payload.authorization.to].every((address) => isAddress(address))) {
    return { ok: false, reason: X402_REASONS.payload };
  }
  return { ok: true, value: payment };
}

/** Requirements a caller names (a facilitator request's, a payment's `accepted`): `invalid_payload` unless well-formed. Never throws. */
export function parsePaymentRequirements(value: unknown): Parsed<PaymentRequirements> {
  return check(PaymentRequirementsSchema, value) ? { ok: true, value: value as PaymentRequirements } : { ok: false, reason: X402_REASONS.payload };
}
