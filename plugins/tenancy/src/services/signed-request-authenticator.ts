import {
  acceptedSigningTargets,
  coreErrors,
  createBatcher,
  parseTimestamp,
  requestSigningString,
  signatureMatchesAny,
  timestampInWindow,
  type AuthContext,
  type AuthenticationRequest,
  type Authenticator,
  isUlid,
  type SignedQueryPolicy,
} from '@gw/kernel';
import type { Context } from 'koa';
import type { ApiKeyService, RequestCredentials } from './api-key-service.js';
import type { ProjectService } from './project-service.js';
import type { SignedAnswerStore } from './signed-answer-store.js';


/**
 * Spec 5.1 (later variant). Checks, in order: the three headers are present and well-formed
 * (`auth_invalid`), the timestamp is within ±300 s (`timestamp_out_of_window`), the project has a
 * key (`auth_invalid`, no enumeration), the signature matches a valid secret of that key in
 * constant time (`signature_invalid`), then the key state (`key_revoked`, `key_suspended`) and the
 * project state (`project_suspended`). Key and project states are only revealed to a caller that
 * proved it holds the secret. Last, a request whose copies must answer alike (writes, the event
 * stream) is claimed or recorded in `tenancy_signed_answers`: an identical copy within the window
 * gets the first answer (docs/decisions.md, "Repeated signed requests answer as the first did").
 *
 * The signed target is `ctx.originalUrl` (path and query exactly as received) or, unless
 * `security.signedQuery` is `required`, the pathname alone (spec 5.1 as worded).
 */
export function createSignedRequestAuthenticator(deps: {
  tenancyProjects: ProjectService;
  tenancyApiKeys: ApiKeyService;
  tenancySignedAnswers: SignedAnswerStore;
  signedQuery: SignedQueryPolicy;
  now?: () => number;
}): Authenticator {
  const now = deps.now ?? (() => Date.now());
  // Requests arriving while a lookup runs wait for the next one, which serves all of them (every
  // project they name) in one statement; nothing is kept after it settles.
  const lookup = createBatcher<string, RequestCredentials | undefined>({
    maxBatch: 500,
    concurrency: 1,
    run: async (projectIds) => {
      const found = await deps.tenancyApiKeys.requestCredentialsMany(projectIds);
      return projectIds.map((id) => {
        const value = found.get(id);
        return value instanceof Error ? { ok: false, error: value } : { ok: true, value };
      });
    },
  });
  return {
    async authenticate(ctx: Context, request?: AuthenticationRequest): Promise<AuthContext> {
      const projectId = ctx.get('x-project-id');
      const timestampHeader = ctx.get('x-timestamp');
      const signature = ctx.get('x-signature').toLowerCase();
      const missing = [
        projectId ? undefined : 'X-Project-Id',
        timestampHeader ? undefined : 'X-Timestamp',
        signature ? undefined : 'X-Signature',
      ].filter(Boolean);
      if (missing.length > 0) throw coreErrors.auth_invalid({ message: `Missing header ${missing.join(', ')}.` });
      if (!isUlid(projectId)) throw coreErrors.auth_invalid({ message: 'X-Project-Id must be a ULID.' });
      const timestamp = parseTimestamp(timestampHeader);
      if (timestamp === undefined) throw coreErrors.auth_invalid({ message: 'X-Timestamp must be Unix time in whole seconds.' });
      if (!/^[0-9a-f]{64}$/.test(signature)) throw coreErrors.auth_invalid({ message: 'X-Signature must be 64 lowercase hex characters.' });
      if (!timestampInWindow(timestamp, Math.floor(now() / 1000))) throw coreErrors.timestamp_out_of_window();

      const credentials = await lookup.submit(projectId);
      const project = credentials?.project;
      if (!credentials || !project) throw coreErrors.auth_invalid({ message: 'Unknown project or no API key.' });
      const signingStrings = acceptedSigningTargets(ctx.originalUrl, deps.signedQuery).map((target) => requestSigningString(ctx.method, target, timestampHeader, ctx.request.rawBody));
      if (!signatureMatchesAny(signature, signingStrings, credentials.secrets)) throw coreErrors.signature_invalid();
      if (credentials.key.state === 'revoked') throw coreErrors.key_revoked();
      if (credentials.key.state === 'suspended') throw coreErrors.key_suspended();
      if (project.status === 'suspended') throw coreErrors.project_suspended();
      const key = { projectId: project.id, signature, target: ctx.originalUrl, timestamp };
      const repeat = request?.repeat ?? 'none';
      const replay = repeat === 'claim' ? await deps.tenancySignedAnswers.claim(key) : repeat === 'record' ? deps.tenancySignedAnswers.record(key) : undefined;
      return {
        ...(replay ? { replay } : {}),
        method: 'api_key',
        credentialId: credentials.key.id,
        project,
        secretKind: credentials.key.secret_kind,
        actor: `api_key:${credentials.key.id}`,
      };
    },
    findProject: (id) => (isUlid(id) ? deps.tenancyProjects.principal(id) : Promise.resolve(undefined)),
  };
}
