import { defineErrors } from '@gw/kernel';

/** Errors of the operator dashboard; under /dashboard every error is an HTML page (see `dashboardErrorFormat`). */
export const dashboardErrors = defineErrors('dashboard', {
  csrf_invalid: { status: 403, message: 'The form expired or did not come from this site. Nothing was changed; reload the page and try again.' },
  role_forbidden: { status: 403, message: 'Your role is read-only member: you can look, but not change anything. Nothing was changed; ask an administrator.' },
  form_already_sent: {
    status: 409,
    message: 'This form was already sent, and what it created was shown then (a secret is shown only once). Nothing was changed; open the page again to do it once more.',
  },
  invalid_form: { status: 400, message: 'A form field is missing or invalid. Nothing was changed.' },
});
