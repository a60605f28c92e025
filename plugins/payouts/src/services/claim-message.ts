/** The text a payer signs to prove control of a refund's address: fixed per refund and address. */
export function claimProofMessage(refundId: string, externalId: string, address: string): string {
  return `Refund ${refundId} of invoice ${externalId}: pay to ${address}`;
}
