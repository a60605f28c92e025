/** `oauth_email_challenges`: one e-mailed sign-in code (only its hash). */
export interface EmailChallengeRow {
  id: string;
  session_id: string;
  user_id: string | null;
  code_hash: string;
  attempts: number;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
}
