import { defineErrors } from '@gw/kernel';

/** Errors of the watchers plugin (spec 4.3, section 7). */
export const watchersErrors = defineErrors('watchers', {
  orphan_not_found: { status: 404, message: 'No such orphan payment in this project.' },
  orphan_already_attributed: { status: 409, message: 'This orphan payment has already been attributed to an invoice.' },
  disagreement_not_found: { status: 404, message: 'No such disagreement between providers.' },
  disagreement_not_ripe: {
    status: 409,
    message: 'The providers may still agree (plugins.watchers.disagreementDecisionSeconds has not passed since the disagreement opened); decide once it has.',
  },
  disagreement_closed: { status: 409, message: 'This disagreement is closed: the providers agreed, or it was decided already.' },
  provider_not_marked: { status: 404, message: 'This provider of this network is not marked.' },
  network_scan_busy: {
    status: 503,
    message: "A scan pass of this network holds it (a paced provider's pass may take a minute or more); retry after the delay in Retry-After.",
    retryAfter: 30,
  },
  orphan_not_confirmed: { status: 409, message: 'This orphan payment has not reached the confirmation threshold yet; it can be attributed once it has.' },
});
