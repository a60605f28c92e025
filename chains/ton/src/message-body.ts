import { Cell, type Address, type Slice } from '@ton/core';

/** TEP-74 `transfer_notification` op: what a jetton wallet sends its owner after receiving jettons. */
export const TRANSFER_NOTIFICATION_OP = 0x7362d09c;

/** What an incoming message body says, as far as the watcher cares. */
export type IncomingBody =
  | { readonly kind: 'comment'; readonly text: string }
  | { readonly kind: 'jetton'; readonly amount: bigint; readonly sender: Address | null; readonly comment: string | undefined }
  | { readonly kind: 'other' };

/**
 * A text comment (op 0 followed by snake-encoded UTF-8) from `slice`, or undefined. NUL characters
 * are dropped: PostgreSQL's text cannot hold them, and a payer's comment must never fail the scan.
 */
function readComment(slice: Slice): string | undefined {
  if (slice.remainingBits < 32 || slice.loadUint(32) !== 0) return undefined;
  return slice.loadStringTail().replaceAll('\u0000', '');
}

/**
 * Decodes a message body (base64 BoC): a text comment, a TEP-74 `transfer_notification`
 * (`query_id:uint64 amount:Coins sender:MsgAddress forward_payload:(Either Cell ^Cell)`, whose
 * forward payload may itself be a text comment), or anything else. A body that does not parse is
 * `other`: it is the payer's data, not the provider's, so it must not fail the scan.
 */
export function decodeIncomingBody(bodyBase64: string | undefined): IncomingBody {
  if (!bodyBase64) return { kind: 'other' };
  try {
    const slice = Cell.fromBase64(bodyBase64).beginParse(true);
    if (slice.remainingBits < 32) return { kind: 'other' };
    const op = slice.preloadUint(32);
    if (op === 0) {
      const text = readComment(slice);
      return text === undefined ? { kind: 'other' } : { kind: 'comment', text };
    }
    if (op !== TRANSFER_NOTIFICATION_OP) return { kind: 'other' };
    slice.skip(32 + 64);
    const amount = slice.loadCoins();
    const sender = slice.loadMaybeAddress();
    let comment: string | undefined;
    try {
      const payload = slice.remainingBits > 0 && slice.loadBit() ? slice.loadRef().beginParse(true) : slice;
      comment = readComment(payload);
    } catch {
      comment = undefined;
    }
    return { kind: 'jetton', amount, sender, comment };
  } catch {
    return { kind: 'other' };
  }
}
