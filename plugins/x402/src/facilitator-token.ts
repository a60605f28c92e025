import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The facilitator token of a project (issue 41, "a facilitator for partners' own APIs"):
 * `x402_<project id>_<base64url HMAC-SHA256(API secret, "x402-facilitator:<project id>")>`. It is
 * derived from the project's API secret, so a partner computes it where its secret lives
 * (`@gw/client`'s `x402FacilitatorToken`), nothing is stored, and it follows the key's rotation
 * and revocation: it is accepted for any secret the project's live key still has.
 */
const TOKEN = /^x402_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{43})$/;

/** What the MAC signs: the purpose and the project, so the token serves nothing else. */
export function facilitatorTokenMessage(projectId: string): string {
  return `x402-facilitator:${projectId}`;
}

/** The token of `projectId` under one of its API secrets. */
export function facilitatorToken(projectId: string, secret: string): string {
  return `x402_${projectId}_${mac(projectId, secret).toString('base64url')}`;
}

/** The project a presented token names and its MAC; undefined for text of another shape. */
export function parseFacilitatorToken(text: string): { readonly projectId: string; readonly mac: Buffer } | undefined {
  const match = TOKEN.exec(text);
  return match ? { projectId: match[1]!, mac: Buffer.from(match[2]!, 'base64url') } : undefined;
}

/** Whether the presented MAC is the project's under any of `secrets`, each compared in constant time. */
export function facilitatorMacMatches(projectId: string, presented: Buffer, secrets: readonly string[]): boolean {
  let matched = false;
  for (const secret of secrets) {
    const expected = mac(projectId, secret);
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) matched = true;
  }
  return matched;
}

function mac(projectId: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(facilitatorTokenMessage(projectId), 'utf8').digest();
}
