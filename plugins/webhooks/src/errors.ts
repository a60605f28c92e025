import { defineErrors } from '@gw/kernel';

/** Errors of the webhooks plugin (spec section 7). */
export const webhooksErrors = defineErrors('webhooks', {
  event_not_found: { status: 404, message: 'No such webhook event in this project.' },
  event_not_resendable: { status: 409, message: 'This event cannot be resent while it is in flight or dead-lettered.' },
});
