import { defineErrors } from '@gw/kernel';

/** Errors of the watchers plugin (spec 4.3, section 7). */
export const watchersErrors = defineErrors('watchers', {
  orphan_not_found: { status: 404, message: 'No such orphan payment in this project.' },
  orphan_already_attributed: { status: 409, message: 'This orphan payment has already been attributed to an invoice.' },
  orphan_not_confirmed: { status: 409, message: 'This orphan payment has not reached the confirmation threshold yet; it can be attributed once it has.' },
});
