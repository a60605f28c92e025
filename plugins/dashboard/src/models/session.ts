import { Model } from 'objection';

/** A dashboard browser session (`dashboard_sessions`); the plugin's only mapping of that table. */
export class Session extends Model {
  static override tableName = 'dashboard_sessions';
  id!: string;
  /** SHA-256 hex of the cookie value (the cookie itself is never stored). */
  token_hash!: string;
  user_id!: string | null;
  /** The open e-mail challenge of a sign-in in progress (oauth plugin). */
  challenge_id!: string | null;
  /** A one-time notice shown on the next page (never a secret). */
  flash!: string | null;
  /** Where a sign-in in progress leads once signed in (a dashboard path, see sign-in/return-path.ts). */
  return_to!: string | null;
  created_at!: Date;
  signed_in_at!: Date | null;
  last_seen_at!: Date;
  /** Absolute end of the session. */
  expires_at!: Date;
}
