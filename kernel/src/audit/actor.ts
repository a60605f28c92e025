import type { AuthContext } from '../http/authenticator.js';
import type { AuditChannel } from './audit-log.js';

/** Who performs a write, for the audit log. */
export interface Actor {
  readonly actor: string;
  readonly channel: AuditChannel;
  readonly requestId?: string;
}

/** The operator at the command line. */
export const CLI_ACTOR: Actor = { actor: 'operator-cli', channel: 'cli' };

/** The audit actor of a REST request. */
export function restActor(auth: AuthContext, requestId: string): Actor {
  return { actor: auth.actor, channel: 'rest', requestId };
}
