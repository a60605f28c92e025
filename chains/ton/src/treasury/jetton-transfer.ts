import { beginCell, type Address, type Cell } from '@ton/core';

/** TEP-74 `transfer` op. */
export const JETTON_TRANSFER_OP = 0x0f8a7ea5;

/**
 * The body of a TEP-74 `transfer` the owner sends to its jetton wallet: move `amount` to
 * `destination` (the owner address; the jetton wallet computes the destination's jetton wallet),
 * send the excess TON to `responseDestination`, and forward `forwardTonAmount` with an empty
 * payload to the destination (a `transfer_notification`).
 */
export function jettonTransferBody(args: {
  readonly queryId: bigint;
  readonly amount: bigint;
  readonly destination: Address;
  readonly responseDestination: Address;
  readonly forwardTonAmount: bigint;
}): Cell {
  return beginCell()
    .storeUint(JETTON_TRANSFER_OP, 32)
    .storeUint(args.queryId, 64)
    .storeCoins(args.amount)
    .storeAddress(args.destination)
    .storeAddress(args.responseDestination)
    .storeBit(false) // no custom_payload
    .storeCoins(args.forwardTonAmount)
    .storeBit(false) // forward_payload inline, empty
    .endCell();
}
