import { Model } from 'objection';

/** `oauth_sessions`: a browser on the sign-in pages, signed in once `user_id` is set. */
export interface SessionRow {
  id: string;
  token_hash: string;
  user_id: string | null;
  signed_in_at: Date | null;
  created_at: Date;
  expires_at: Date;
}

/** The Objection model of `oauth_sessions` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class Session extends Model implements SessionRow {
  static override tableName = 'oauth_sessions';
  declare id: string;
  declare token_hash: string;
  declare user_id: string | null;
  declare signed_in_at: Date | null;
  declare created_at: Date;
  declare expires_at: Date;
}
