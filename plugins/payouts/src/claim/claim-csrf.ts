import { doubleSubmitToken } from '@gw/kernel';

/**
 * The claim form's double-submit token (payers have no session), as the checkout's panel forms
 * have it: the page's GET sets it, a claim is taken only when the posted `csrf` field equals it.
 */
export const claimFormToken = doubleSubmitToken('gw_refund_claim');
