import { Model } from 'objection';

/** `oauth_email_challenges`: one e-mailed sign-in code (only its hash). */
export interface EmailChallengeRow {
  id: string;
  /** The OAuth browser session, or null for a challenge of another surface (then `binding`). */
  session_id: string | null;
  /** The caller's key for a challenge of another surface (the dashboard's pre-sign-in session). */
  binding: string | null;
  user_id: string | null;
  code_hash: string;
  attempts: number;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
}

/** The Objection model of `oauth_email_challenges` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class EmailChallenge extends Model implements EmailChallengeRow {
  static override tableName = 'oauth_email_challenges';
  declare id: string;
  declare session_id: string | null;
  declare binding: string | null;
  declare user_id: string | null;
  declare code_hash: string;
  declare attempts: number;
  declare created_at: Date;
  declare expires_at: Date;
  declare consumed_at: Date | null;
}
