import { defineErrors } from '@gw/kernel';

/** Errors of the webhooks plugin (spec section 7). */
export const webhooksErrors = defineErrors('webhooks', {
  event_not_found: { status: 404, message: 'No such webhook event in this project.' },
  webhook_url_missing: { status: 409, message: 'The project has no default webhook URL; set one first.' },
  event_not_resendable: { status: 409, message: 'This event cannot be resent while it is in flight or dead-lettered.' },
  event_not_dead_lettered: { status: 409, message: 'Only dead-lettered events can be replayed; nothing was replayed.' },
});
