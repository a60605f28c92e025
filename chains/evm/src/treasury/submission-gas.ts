/**
 * Gas limits of the gas address's submissions (EIP-7702 sweeps, EIP-3009 transfers). They are
 * fixed when round 1 is built, before any delegation exists to estimate against, so they are
 * upper bounds from the EIP figures; a submission pays only the gas it uses (the rest of
 * gas limit × max fee is never charged), and `feeUnits` shows the maximum.
 */
export const SUBMISSION_GAS = {
  /** The transaction, and the calldata of each call at 16 gas a byte (about 100 bytes a sweep, 300 a 3009 call). */
  base: 21_000n,
  calldataPerByte: 16n,
  /** EIP-7702 PER_EMPTY_ACCOUNT_COST, charged for each authorization carried (12,500 of it is refunded for an existing account). */
  perAuthorization: 25_000n,
  /** A call through Multicall3 or into a delegated account: cold account access of the deposit address and of its delegate, the call frame. */
  perCall: 12_000n,
  /** EIP-3009 on top of the token transfer: signature recovery (3,000), EIP-712 hashing, the used-nonce slot (22,100). */
  perTransferWithAuthorization: 35_000n,
} as const;

/** How many calls one submission carries through Multicall3 (a block fits far more; this keeps one failure's cost bounded). */
export const CALLS_PER_SUBMISSION = 100;
