import { definePlugin, isDevelopment, service, serviceValue, withDeps } from '@gw/kernel';
import { OAUTH_EXPORTS } from './contract.js';
import { m0001OAuth } from '../migrations/0001_oauth.js';
import { m0002DocumentFailures } from '../migrations/0002_document_failures.js';
import { m0003ChallengeBinding } from '../migrations/0003_challenge_binding.js';
import { m0004WrongCodeCap } from '../migrations/0004_wrong_code_cap.js';
import { oauthCommands } from './cli.js';
import { OAuthConfigSchema } from './config.js';
import { oauthErrors } from './errors.js';
import { oauthJobs } from './jobs.js';
import { oauthErrorFormat } from './oauth-result.js';
import { oauthRoutes } from './routes.js';
import { AuthorizationService } from './services/authorization-service.js';
import { ClientDocumentFetcher } from './services/client-document-fetcher.js';
import { ClientService } from './services/client-service.js';
import { CodeMailer } from './services/mailer.js';
import { OAuthUrls } from './services/oauth-urls.js';
import { SignInService } from './services/sign-in-service.js';
import { sealAad, TokenService } from './services/token-service.js';

/**
 * OAuth 2.1 authorization server for the MCP endpoint (spec 2.7, 3.3, 4.6, 5.4): metadata (RFC
 * 8414, 9728), dynamic registration (RFC 7591) and client metadata documents, sign-in by e-mailed
 * one-time code for invited users, consent, PKCE S256 codes, rotating refresh tokens with replay
 * detection, revocation (RFC 7009) and connected-app management. See plugins/oauth/README.md.
 */
export const oauthPlugin = definePlugin({
  id: 'oauth',
  dependsOn: ['tenancy'],
  exports: OAUTH_EXPORTS,
  config: OAuthConfigSchema,
  errors: [oauthErrors],
  migrations: [m0001OAuth, m0002DocumentFailures, m0003ChallengeBinding, m0004WrongCodeCap],
  // The successor pair kept during the refresh leeway (a master-key rotation re-seals it).
  sealedColumns: [{ table: 'oauth_refresh_tokens', column: 'sealed_successor', aad: sealAad }],
  register: ({ config, kernelConfig, logger }) => {
    if (kernelConfig.env === 'production' && (config.clientDocuments.allowPrivateAddresses || config.clientDocuments.extraCaPem)) {
      throw new Error('plugins.oauth.clientDocuments.allowPrivateAddresses and extraCaPem are for tests; they are refused when env is production');
    }
    if (config.emailCode.sendsPerHourPerAddress <= config.emailCode.sendsPerHour) {
      // Otherwise one requester could use up an address's codes for everyone (issue 24 item 4).
      throw new Error('plugins.oauth.emailCode.sendsPerHourPerAddress must be larger than emailCode.sendsPerHour');
    }
    const urls = new OAuthUrls(kernelConfig, config.mcpUrl);
    return {
      oauthConfig: serviceValue(config),
      oauthUrls: serviceValue(urls),
      oauthDocumentFetcher: serviceValue(new ClientDocumentFetcher(config.clientDocuments)),
      oauthClients: service(['db', 'audit', 'rateLimiter', 'logger', 'oauthConfig', 'oauthDocumentFetcher'], (deps) => new ClientService(deps)),
      oauthMailer: service([], () => new CodeMailer({ smtpUrl: config.smtp.url, from: config.smtp.from, production: !isDevelopment(kernelConfig), logger }), {
        dispose: (mailer) => mailer.close(),
      }),
      oauthSignIn: service(
        ['db', 'rateLimiter', 'logger', 'oauthConfig', 'oauthMailer', 'tenancyUsers', 'tenancyOperators'],
        (deps) => new SignInService(deps),
      ),
      oauthAuthorizations: service(['db', 'audit', 'oauthConfig'], (deps) => new AuthorizationService(deps)),
      oauthTokens: service(['db', 'audit', 'secretBox', 'oauthConfig'], (deps) => new TokenService(deps)),
    };
  },
  routes: oauthRoutes,
  errorFormats: withDeps([], () => [oauthErrorFormat]),
  jobs: oauthJobs,
  cli: oauthCommands,
  // Disabling a user ends their OAuth grants, tokens and consents; ending their sessions signs the
  // authorize pages out (issue 33 item 12). Both inside tenancy's transaction, on oauth's own tables.
  userAccessEnders: withDeps(['oauthSignIn', 'oauthTokens'], ({ oauthSignIn, oauthTokens }) => [
    { name: 'oauth_sessions', end: (userId, _scope, trx) => oauthSignIn.endSessionsOf(userId, trx) },
    { name: 'oauth_grants', end: async (userId, scope, trx) => (scope === 'everything' ? oauthTokens.revokeAllOf(userId, trx) : 0) },
  ]),
  start: withDeps(['kernelConfig', 'kernelRole', 'oauthConfig', 'logger'], async ({ kernelConfig, kernelRole, oauthConfig, logger }) => {
    // Only processes that serve the sign-in pages say so; the CLI's stdout carries JSON.
    if ((kernelRole === 'gateway' || kernelRole === 'all') && !isDevelopment(kernelConfig) && !oauthConfig.smtp.url) {
      logger.warn('plugins.oauth.smtp.url is not set: OAuth sign-in codes cannot be sent');
    }
  }),
});

export * from './contract.js';
export { OAuthConfigSchema, type OAuthConfig } from './config.js';
export { oauthErrors } from './errors.js';
export { OAUTH_SCOPES, isOAuthScope, parseScope, type OAuthScope } from './scopes.js';
export {
  TokenService,
  type VerifiedAccessToken,
  type RefusedAccessToken,
  type TokenResponse,
  type ConnectedApp,
  type AppRevocation,
} from './services/token-service.js';
export { SignInService, type StartResult, type VerifyResult } from './services/sign-in-service.js';
export { OAuthUrls, MCP_TRANSPORT_PATH, type OAuthAddresses } from './services/oauth-urls.js';
export { redirectUriProblem, redirectUriMatches } from './services/redirect-uri.js';
export { ACCESS_PREFIX, REFRESH_PREFIX, CODE_PREFIX } from './tokens.js';
