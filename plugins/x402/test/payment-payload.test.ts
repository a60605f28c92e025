/**
 * `parsePaymentPayload` (issue 41, review L2): a mixed-case address must carry a valid EIP-55
 * checksum, so a bad one is the payer's `invalid_payload`, not an unexpected error later.
 */
import test from 'ava';
import { getAddress, Wallet } from 'ethers';
import { parsePaymentPayload } from '../src/protocol/schemas.js';

const address = () => getAddress(Wallet.createRandom().address);

/** `address` with the case of its first letter flipped: still 40 hex digits, no longer its checksum. */
function badChecksum(checksummed: string): string {
  const at = [...checksummed].findIndex((c, i) => i > 1 && /[a-fA-F]/.test(c));
  const c = checksummed[at]!;
  return checksummed.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + checksummed.slice(at + 1);
}

function payment(overrides: { asset?: string; payTo?: string; from?: string; to?: string } = {}) {
  const payTo = overrides.payTo ?? address();
  return {
    x402Version: 2,
    accepted: {
      scheme: 'exact',
      network: 'eip155:31337',
      asset: overrides.asset ?? address(),
      amount: '1000',
      payTo,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    },
    payload: {
      signature: `0x${'11'.repeat(65)}`,
      authorization: {
        from: overrides.from ?? address(),
        to: overrides.to ?? payTo,
        value: '1000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: `0x${'22'.repeat(32)}`,
      },
    },
  };
}

test('checksummed, lower-case and upper-case addresses are read', (t) => {
  t.true(parsePaymentPayload(payment()).ok);
  const lower = address().toLowerCase();
  t.true(parsePaymentPayload(payment({ from: lower, payTo: lower })).ok);
  t.true(parsePaymentPayload(payment({ asset: `0x${address().slice(2).toUpperCase()}` })).ok);
});

test('a mixed-case address with a bad checksum is invalid_payload, wherever it is', (t) => {
  for (const field of ['asset', 'payTo', 'from', 'to'] as const) {
    const bad = badChecksum(address());
    t.deepEqual(parsePaymentPayload(payment({ [field]: bad })), { ok: false, reason: 'invalid_payload' }, field);
  }
});
