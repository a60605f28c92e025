import { createHash } from 'node:crypto';
import { randomBase62, sameSecret } from '@gw/kernel';

/** Wire formats of spec 2.7: a prefix and a 32-character base62 body. */
export const CODE_PREFIX = 'oac_';
export const ACCESS_PREFIX = 'svc_oat_';
export const REFRESH_PREFIX = 'svc_ort_';
export const CODE_PATTERN = /^oac_[0-9A-Za-z]{32}$/;
export const ACCESS_PATTERN = /^svc_oat_[0-9A-Za-z]{32}$/;
export const REFRESH_PATTERN = /^svc_ort_[0-9A-Za-z]{32}$/;

/** Access tokens live 3600 s, refresh tokens 30 days from each rotation (spec 8; fixed). */
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;

export const newCode = () => `${CODE_PREFIX}${randomBase62(32)}`;
export const newAccessToken = () => `${ACCESS_PREFIX}${randomBase62(32)}`;
export const newRefreshToken = () => `${REFRESH_PREFIX}${randomBase62(32)}`;

/** RFC 7636: a verifier is 43 to 128 characters of [A-Za-z0-9-._~]. */
export const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: base64url of a SHA-256 digest, 43 characters. */
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Whether base64url(SHA-256(verifier)) equals the stored challenge (constant time). */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return sameSecret(createHash('sha256').update(verifier, 'ascii').digest('base64url'), challenge);
}
