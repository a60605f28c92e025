/**
 * The contract of the tenancy plugin (operators, projects, API keys, personal access tokens and users): the services it registers and
 * what other plugins may import from it (`@gw/plugin-tenancy/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { ApiKeyService } from './services/api-key-service.js';
import type { OperatorService } from './services/operator-service.js';
import type { PatService } from './services/pat-service.js';
import type { ProjectService } from './services/project-service.js';
import type { SignedAnswerStore } from './services/signed-answer-store.js';
import type { UserService } from './services/user-service.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly tenancyOperators: OperatorService;
    readonly tenancyProjects: ProjectService;
    readonly tenancyApiKeys: ApiKeyService;
    readonly tenancyPats: PatService;
    readonly tenancyUsers: UserService;
    readonly tenancySignedAnswers: SignedAnswerStore;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const TENANCY_EXPORTS: readonly ServiceName[] = ['tenancyOperators', 'tenancyProjects', 'tenancyApiKeys', 'tenancyPats', 'tenancyUsers'];

export { tenancyErrors } from './errors.js';
export type { ApiKeyService, IssuedSecret } from './services/api-key-service.js';
export { MAX_EMAIL_LENGTH, normaliseEmail } from './services/email-address.js';
export { PAT_PREFIX, type PatService } from './services/pat-service.js';
export type { OperatorService } from './services/operator-service.js';
export type { ProjectService, ProjectView } from './services/project-service.js';
export type { AccessEnded, UserScope, UserService, UserView } from './services/user-service.js';
export { USER_ROLES, type UserRole } from './models/user.js';
export { validateWebhookUrl } from './services/webhook-url.js';
export { PAT_SCOPES, type PatScope } from './scopes.js';
export { INSUFFICIENT_SCOPE, patHasScope } from './services/pat-authenticator.js';
