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
import type { Cradle } from '@gw/kernel';
import type { ApiKeyService, RequestLookup } from './api-key-service.js';
import type { ProjectService } from './project-service.js';
import { earlierAnswer, signedRequestHash, type SignedAnswerStore } from './signed-answer-store.js';

/**
 * Spec 5.1 (later variant). Checks, in order: the three headers are present and well-formed
 * (`auth_invalid`), the timestamp is within ±300 s (`timestamp_out_of_window`), the project has a
 * key (`auth_invalid`, no enumeration), the signature matches a valid secret of that key in
 * constant time (`signature_invalid`), then the key state (`key_revoked`, `key_suspended`) and the
 * project state (`project_suspended`). Key and project states are only revealed to a caller that
 * proved it holds the secret. Last, a request whose copies must answer alike (writes, the event
 * stream) is claimed or recorded in `tenancy_signed_answers`: an identical copy within the window
 * gets the first answer (docs/decisions.md, "Signing forms and repeated signed requests").
 *
 * The signed target is `ctx.originalUrl` (path and query exactly as received) or, unless
 * `security.signedQuery` is `required`, the pathname alone (spec 5.1 as worded).
 */
export function createSignedRequestAuthenticator(deps: {
  tenancyProjects: ProjectService;
  tenancyApiKeys: ApiKeyService;
  tenancySignedAnswers: SignedAnswerStore;
  signedQuery: SignedQueryPolicy;
  logger: Pick<Cradle['logger'], 'error'>;
  now?: () => number;
}): Authenticator {
  const now = deps.now ?? (() => Date.now());
  // Requests arriving while a lookup runs wait for the next one, which serves all of them (every
  // project they name, and the recorded answers of the writes among them) in one statement;
  // nothing is kept after it settles.
  const lookup = createBatcher<{ projectId: string; answerHash: string | undefined }, RequestLookup>({
    maxBatch: 500,
    concurrency: 1,
    run: async (items) => {
      const found = await deps.tenancyApiKeys.requestCredentialsMany(
        items.map((item) => item.projectId),
        items.flatMap(({ projectId, answerHash }) => (answerHash ? [{ projectId, hash: answerHash }] : [])),
      );
      return items.map(({ projectId }) => {
        const value: RequestLookup = found.get(projectId) ?? { answers: new Map() };
        if (!(value.credentials instanceof Error)) return { ok: true, value };
        // A secret that does not open is the server's fault (a restore under another master key),
        // never the partner's: a 503 naming it, and the cause in the operator's log.
        deps.logger.error(
          { project_id: projectId, err: value.credentials },
          'tenancy: a stored API secret does not open under the master key (restored under another key?)',
        );
        return { ok: false, error: coreErrors.stored_secret_unreadable() };
      });
    },
  });
  return {
    async authenticate(ctx: Context, request?: AuthenticationRequest): Promise<AuthContext> {
      const projectId = ctx.get('x-project-id');
      const timestampHeader = ctx.get('x-timestamp');
      const signature = ctx.get('x-signature').toLowerCase();
      const missing = [projectId ? undefined : 'X-Project-Id', timestampHeader ? undefined : 'X-Timestamp', signature ? undefined : 'X-Signature'].filter(
        Boolean,
      );
      if (missing.length > 0) throw coreErrors.auth_invalid({ message: `Missing header ${missing.join(', ')}.` });
      if (!isUlid(projectId)) throw coreErrors.auth_invalid({ message: 'X-Project-Id must be a ULID.' });
      const timestamp = parseTimestamp(timestampHeader);
      if (timestamp === undefined) throw coreErrors.auth_invalid({ message: 'X-Timestamp must be Unix time in whole seconds.' });
      if (!/^[0-9a-f]{64}$/.test(signature)) throw coreErrors.auth_invalid({ message: 'X-Signature must be 64 lowercase hex characters.' });
      if (!timestampInWindow(timestamp, Math.floor(now() / 1000))) throw coreErrors.timestamp_out_of_window();

      const repeat = request?.repeat ?? 'none';
      const answerHash = repeat === 'none' ? undefined : signedRequestHash(signature, ctx.originalUrl);
      const found = await lookup.submit({ projectId, answerHash });
      const recorded = answerHash === undefined ? undefined : found.answers.get(answerHash);
      const earlier = recorded && recorded.status !== null ? { status: recorded.status, headers: recorded.headers, body: recorded.body } : undefined;
      const credentials = found.credentials instanceof Error ? undefined : found.credentials;
      const project = credentials?.project;
      if (!credentials || !project) {
        // A copy of a request that deleted its own project (a sandbox DELETE retried) cannot be
        // verified any more; it gets the first answer, which only a holder of the signature (whoever
        // saw the request) can name, rather than a 401 for an honest retry.
        if (earlier) return { method: 'api_key', credentialId: '', actor: `api_key:${projectId}`, replay: earlierAnswer(earlier) };
        throw coreErrors.auth_invalid({ message: 'Unknown project or no API key.' });
      }
      const signingStrings = acceptedSigningTargets(ctx.originalUrl, deps.signedQuery).map((target) =>
        requestSigningString(ctx.method, target, timestampHeader, ctx.request.rawBody),
      );
      if (!signatureMatchesAny(signature, signingStrings, credentials.secrets)) throw coreErrors.signature_invalid();
      if (credentials.key.state === 'revoked') throw coreErrors.key_revoked();
      if (credentials.key.state === 'suspended') throw coreErrors.key_suspended();
      if (project.status === 'suspended') throw coreErrors.project_suspended();
      const key = { projectId: project.id, signature, target: ctx.originalUrl, timestamp };
      const replay = earlier
        ? earlierAnswer(earlier)
        : repeat === 'claim'
          ? await deps.tenancySignedAnswers.claim(key)
          : repeat === 'record'
            ? deps.tenancySignedAnswers.record(key)
            : undefined;
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
