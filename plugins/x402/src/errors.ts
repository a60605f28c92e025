import { defineErrors } from '@gw/kernel';

/**
 * Errors of the x402 plugin's REST surface (its facilitator's credential and inputs). Refusals of
 * a payment itself are the protocol's reasons (`protocol/reasons.ts`), in its own answers.
 */
export const x402Errors = defineErrors('x402', {
  x402_off: { status: 404, message: 'x402 is not offered by this gateway (plugins.x402.settlement is off).' },
  x402_coin_unsupported: {
    status: 422,
    message: 'The coin cannot be paid with x402 here: it must be a token implementing EIP-3009 on a network this gateway settles on.',
  },
  x402_nothing_to_pay: {
    status: 409,
    message: 'Nothing can be paid here now: the invoice is paid, expired or cancelled, or its checkout session is closed.',
  },
  x402_credential_invalid: { status: 401, message: 'This route needs the project’s facilitator token: Authorization: Bearer x402_…' },
});
