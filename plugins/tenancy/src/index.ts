import { definePlugin, service, withDeps } from '@gw/kernel';
import { TENANCY_EXPORTS } from './contract.js';
import { m0001Tenancy } from '../migrations/0001_tenancy.js';
import { m0002RequestSignatures } from '../migrations/0002_request_signatures.js';
import { m0003UserRoles } from '../migrations/0003_user_roles.js';
import { m0004UsersPerOperator } from '../migrations/0004_users_per_operator.js';
import { m0005SignedAnswers } from '../migrations/0005_signed_answers.js';
import { tenancyCommands } from './cli.js';
import { tenancyErrors } from './errors.js';
import { tenancyRoutes } from './routes.js';
import { ApiKeyService } from './services/api-key-service.js';
import { OperatorService } from './services/operator-service.js';
import { PatService } from './services/pat-service.js';
import { ProjectService } from './services/project-service.js';
import { createPatAuthenticator } from './services/pat-authenticator.js';
import { createSignedRequestAuthenticator } from './services/signed-request-authenticator.js';
import { SignedAnswerStore } from './services/signed-answer-store.js';
import { tenancyJobs } from './jobs.js';
import { UserService } from './services/user-service.js';

/**
 * Tenancy and credentials: operators and their subscription status, projects (kind fixed at
 * creation), API keys with encrypted secrets and rotation, personal access tokens, invited users,
 * the `signed` authenticator of spec 5.1 that every partner REST route uses, and the `pat`
 * authenticator of operator routes (issue 35).
 */
export const tenancyPlugin = definePlugin({
  id: 'tenancy',
  exports: TENANCY_EXPORTS,
  errors: [tenancyErrors],
  migrations: [m0001Tenancy, m0002RequestSignatures, m0003UserRoles, m0004UsersPerOperator, m0005SignedAnswers],
  // API secrets, sealed with their row id as associated data (a master-key rotation re-seals them).
  sealedColumns: [{ table: 'tenancy_api_key_secrets', column: 'sealed_secret', aad: (id) => id }],
  register: () => ({
    tenancyOperators: service(['db', 'audit'], (deps) => new OperatorService(deps)),
    tenancyProjects: service(['db', 'audit', 'tenancyOperators', 'tenancyApiKeys'], (deps) => new ProjectService(deps)),
    tenancyApiKeys: service(['db', 'audit', 'secretBox', 'kernelConfig'], (deps) => new ApiKeyService(deps)),
    tenancyPats: service(['db', 'audit', 'tenancyOperators'], (deps) => new PatService(deps)),
    tenancyUsers: service(['db', 'audit', 'userAccess', 'tenancyOperators'], (deps) => new UserService(deps)),
    tenancySignedAnswers: service(['db'], (deps) => new SignedAnswerStore(deps)),
  }),
  jobs: tenancyJobs,
  authenticators: withDeps(['tenancyProjects', 'tenancyApiKeys', 'tenancySignedAnswers', 'tenancyPats', 'kernelConfig', 'logger'], (deps) => ({
    signed: createSignedRequestAuthenticator({
      tenancyProjects: deps.tenancyProjects,
      tenancyApiKeys: deps.tenancyApiKeys,
      tenancySignedAnswers: deps.tenancySignedAnswers,
      signedQuery: deps.kernelConfig.security.signedQuery,
      logger: deps.logger,
    }),
    // Operator routes (the treasury, issue 35): a personal access token, never a project's API key.
    pat: createPatAuthenticator({ tenancyPats: deps.tenancyPats, tenancyProjects: deps.tenancyProjects }),
  })),
  routes: tenancyRoutes,
  cli: tenancyCommands,
});

export * from './contract.js';
export { ApiKeyService, SANDBOX_SECRET_PREFIX } from './services/api-key-service.js';
export type { IssuedSecret, ApiKeyView } from './services/api-key-service.js';
export { PatService, PAT_PREFIX } from './services/pat-service.js';
export type { PatPrincipal, PatView } from './services/pat-service.js';
export { ProjectService } from './services/project-service.js';
export type { ProjectView } from './services/project-service.js';
export { OperatorService } from './services/operator-service.js';
export { UserService, type UserView } from './services/user-service.js';
export { USER_ROLES, type UserRole } from './models/user.js';
export { MAX_EMAIL_LENGTH, normaliseEmail } from './services/email-address.js';
export { PAT_SCOPES, isPatScope, type PatScope } from './scopes.js';
export { tenancyErrors } from './errors.js';
export { validateWebhookUrl } from './services/webhook-url.js';
