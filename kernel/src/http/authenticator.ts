import type { Context } from 'koa';
import type { ProjectKind } from '@gw/chain-api';
import type { AnswerReplay } from './answer-replay.js';

/** The project a credential acts for, as guards need to see it. */
export interface ProjectPrincipal {
  readonly id: string;
  readonly kind: ProjectKind;
  readonly status: 'active' | 'suspended';
  readonly operatorId: string;
  /** Whether the operator's subscription is `active` (writes of non-sandbox projects need it). */
  readonly subscriptionActive: boolean;
}

/** Who made a request. Set on `ctx.state.auth` by the route's authenticator. */
export interface AuthContext {
  /**
   * `btcpay_token`: a Greenfield API key of the BTCPay-compatible API (`Authorization: token <key>`).
   * `x402_facilitator`: a project's x402 facilitator token (`Authorization: Bearer x402_…`), derived
   * from its API secret, on the facilitator routes partners point the x402 middleware at.
   */
  readonly method: 'api_key' | 'pat' | 'oauth' | 'btcpay_token' | 'x402_facilitator';
  /** Id of the API key, PAT, OAuth token or Greenfield API key (the project's id for an x402 facilitator token). */
  readonly credentialId: string;
  /** The project the credential acts for (API keys always; PATs when bound to a project). */
  readonly project?: ProjectPrincipal;
  /** For API keys: whether the secret is a production (64 hex) or sandbox (`sk_sandbox_`) secret. */
  readonly secretKind?: 'production' | 'sandbox';
  /** Scopes of a PAT or OAuth token; absent for API keys (which may do everything for their project). */
  readonly scopes?: readonly string[];
  /** The operator a PAT, OAuth token or Greenfield API key belongs to (operator-level routes such as the treasury's scope their reads to it). */
  readonly operatorId?: string;
  /** Audit actor string, e.g. `api_key:01H...`. */
  readonly actor: string;
  /** Set by an authenticator that answers identical copies of a request alike (`AuthenticationRequest.repeat`). */
  readonly replay?: AnswerReplay;
}

/** What the kernel tells an authenticator about the route being called. */
export interface AuthenticationRequest {
  /**
   * How identical copies of a request whose credential can be captured and sent again (a signed
   * request) are answered (docs/decisions.md, "Signing forms and repeated signed requests"):
   * `claim` (writes, the event stream): the first copy claims the request before it runs; a copy
   * waits for its answer and gets it without running. `record` (writes idempotent by design):
   * copies may run, each answers the first recorded answer. `none` (other reads): each copy runs.
   */
  readonly repeat: 'claim' | 'record' | 'none';
}

/**
 * An extension point: a plugin provides named authenticators and routes pick one by name. The
 * kernel runs it before validation and guards. It must throw a catalogued AppError on failure and
 * must never throw anything else for bad credentials.
 */
export interface Authenticator {
  /**
   * `request.repeat` says how identical copies of the request are to be answered; an
   * authenticator whose credential can be captured and sent again (a signed request) returns an
   * `AuthContext.replay` that does so, and the kernel honours it.
   */
  authenticate(ctx: Context, request?: AuthenticationRequest): Promise<AuthContext>;
  /** Looks up a project by id for the cross-mode check of routes with a `projectParam`. */
  findProject?(projectId: string): Promise<ProjectPrincipal | undefined>;
}
