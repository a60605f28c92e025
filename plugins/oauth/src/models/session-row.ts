/** `oauth_sessions`: a browser on the sign-in pages, signed in once `user_id` is set. */
export interface SessionRow {
  id: string;
  token_hash: string;
  user_id: string | null;
  signed_in_at: Date | null;
  created_at: Date;
  expires_at: Date;
}
