import { defineErrors } from '@gw/kernel';

/**
 * Errors of the wallets plugin. `wallet_not_bound` and `xpub_not_verified` are spec section 7
 * codes (invoice creation surfaces them through `requireVerifiedWallet`); the others are the
 * operator-facing outcomes of registration and the ownership challenge.
 */
export const walletsErrors = defineErrors('wallets', {
  wallet_not_bound: { status: 422, message: 'No wallet is bound to the project for this chain.' },
  xpub_not_verified: { status: 409, message: 'The wallet ownership challenge has not been completed.' },
  wallet_exists: { status: 409, message: 'A verified wallet is already bound for this chain; pass --replace to replace it.' },
  wallet_already_verified: { status: 409, message: 'The wallet is already verified; nothing to do.' },
  wallet_challenge_expired: { status: 409, message: 'The ownership challenge has expired; register the key again for a fresh challenge.' },
  wallet_signature_rejected: { status: 422, message: 'The signature is not a signature of the challenge by the key of receive index 0.' },
});
