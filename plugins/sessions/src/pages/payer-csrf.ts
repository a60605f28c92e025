import { doubleSubmitToken } from '@gw/kernel';

/**
 * The forms of a session's page (coin, e-mail) and of a payment link's page carry a double-submit
 * token, as the checkout's panel forms and the refund claim page do (payers have no session): the
 * page's GET sets it in a cookie scoped to the page's path, a POST is taken only when its `csrf`
 * field equals the cookie. A forged form picks no coin and opens no session.
 */
export const payerFormToken = doubleSubmitToken('gw_payer_form');
