import { defineErrors } from '@gw/kernel';

/** Errors of the operator dashboard; under /dashboard every error is an HTML page (see `dashboardErrorFormat`). */
export const dashboardErrors = defineErrors('dashboard', {
  csrf_invalid: { status: 403, message: 'The form expired or did not come from this site. Nothing was changed; reload the page and try again.' },
  role_forbidden: { status: 403, message: 'Your role is read-only member: you can look, but not change anything. Nothing was changed; ask an administrator.' },
  form_already_sent: {
    status: 409,
    message:
      'This form was already sent once; nothing was changed now. A secret is shown only once, on the answer to the first send: if you did not see it, open the page again and issue or create a new one.',
  },
  invalid_form: { status: 400, message: 'A form field is missing or invalid. Nothing was changed.' },
});
