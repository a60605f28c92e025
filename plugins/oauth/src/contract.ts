/**
 * The contract of the oauth plugin (the OAuth authorization server): the services it registers and
 * what other plugins may import from it (`@gw/plugin-oauth/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { OAuthConfig } from './config.js';
import type { AuthorizationService } from './services/authorization-service.js';
import type { ClientDocumentFetcher } from './services/client-document-fetcher.js';
import type { ClientService } from './services/client-service.js';
import type { CodeMailer } from './services/mailer.js';
import type { OAuthUrls } from './services/oauth-urls.js';
import type { SignInService } from './services/sign-in-service.js';
import type { TokenService } from './services/token-service.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly oauthConfig: OAuthConfig;
    readonly oauthUrls: OAuthUrls;
    readonly oauthDocumentFetcher: ClientDocumentFetcher;
    readonly oauthClients: ClientService;
    readonly oauthMailer: CodeMailer;
    readonly oauthSignIn: SignInService;
    readonly oauthAuthorizations: AuthorizationService;
    /** Token issue, rotation, revocation and `verifyAccessToken` for the MCP endpoint. */
    readonly oauthTokens: TokenService;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const OAUTH_EXPORTS: readonly ServiceName[] = ['oauthConfig', 'oauthUrls', 'oauthSignIn', 'oauthTokens', 'oauthMailer'];

export { oauthErrors } from './errors.js';
export { MCP_TRANSPORT_PATH, type OAuthAddresses } from './services/oauth-urls.js';
export { ACCESS_PREFIX } from './tokens.js';
