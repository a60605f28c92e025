import { defineErrors } from '@gw/kernel';

/** Errors of the tenancy plugin (operators, projects, keys, PATs, users). Mostly CLI-facing. */
export const tenancyErrors = defineErrors('tenancy', {
  operator_not_found: { status: 404, message: 'No operator with that id or name.' },
  operator_required: { status: 400, message: 'Several operators exist; pass --operator.' },
  operator_exists: { status: 409, message: 'An operator with that name already exists.' },
  project_not_found: { status: 404, message: 'No project with that id.' },
  project_exists: { status: 409, message: 'The operator already has a project with that name.' },
  api_key_not_found: { status: 404, message: 'The project has no API key; issue one with `key issue`.' },
  api_key_exists: { status: 409, message: 'The project already has a live API key; rotate, suspend or revoke it instead.' },
  api_key_state_conflict: { status: 409, message: 'The API key is not in a state that allows this.' },
  pat_not_found: { status: 404, message: 'No personal access token with that id.' },
  invalid_scope: { status: 400, message: 'Unknown scope.' },
  user_not_found: { status: 404, message: 'No user with that id or e-mail.' },
  user_exists: { status: 409, message: 'The operator already has a user with that e-mail.' },
  user_ambiguous: { status: 409, message: 'Users of several operators have that e-mail; name the user by id or pass --operator.' },
  last_admin: { status: 409, message: 'This is the last administrator of the operator who is not disabled; make another user an administrator first.' },
  invalid_email: { status: 400, message: 'Not a valid e-mail address.' },
  invalid_role: { status: 400, message: 'Not a user role (admin or member).' },
  invalid_webhook_url: { status: 400, message: 'The webhook URL is not acceptable.' },
});
