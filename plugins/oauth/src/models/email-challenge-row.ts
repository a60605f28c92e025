/** `oauth_email_challenges`: one e-mailed sign-in code (only its hash). */
export interface EmailChallengeRow {
  id: string;
  /** The OAuth browser session, or null for a challenge of another surface (then `binding`). */
  session_id: string | null;
  /** The caller's key for a challenge of another surface (the dashboard's pre-sign-in session). */
  binding: string | null;
  user_id: string | null;
  /** SHA-256 of the lower-cased address (null for challenges older than the wrong-code cap). */
  address_hash: string | null;
  code_hash: string;
  attempts: number;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
}
