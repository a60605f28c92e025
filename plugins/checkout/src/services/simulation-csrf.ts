import { doubleSubmitToken } from '@gw/kernel';

/**
 * The sandbox buttons of a checkout page are forms that change the invoice (issue 33 finding 19);
 * payers have no session, so the page uses a double-submit token: a simulation is run only when
 * the posted `csrf` field equals the page's cookie. A forged form (on a gateway only the victim's
 * browser reaches, such as a developer's loopback) does nothing.
 */
export const simulationToken = doubleSubmitToken('gw_checkout_sim');
