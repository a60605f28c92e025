import type { ItemView } from './contract.js';

/** How an item's address arrived: the payer's claim on the claim page, or the partner's create request. */
export const ADDRESS_SOURCES = ['claim', 'partner'] as const;
export type AddressSource = (typeof ADDRESS_SOURCES)[number];

/**
 * What an approver reads beside the address (dashboard, `gateway payout show`): anyone holding the
 * invoice's checkout link can claim a refund, so the approval is the guard and the approver must
 * see whether the address came from that page or from the partner.
 */
export function addressSourceText(item: Pick<ItemView, 'address_source' | 'claimed_at_iso'>): string | null {
  if (item.address_source === 'claim') return `claimed on the claim page${item.claimed_at_iso ? ` at ${item.claimed_at_iso}` : ''}`;
  if (item.address_source === 'partner') return 'given by the partner at creation';
  return null;
}
