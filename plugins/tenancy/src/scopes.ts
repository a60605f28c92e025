/** PAT scopes of spec 5.3, the treasury's (issue 35) and the refunds' and payouts' (issue 37). */
export const PAT_SCOPES = [
  'projects:read',
  'invoices:read',
  'transactions:read',
  'webhooks:read',
  'invoices:write',
  'webhooks:manage',
  'admin:all',
  'sandbox:simulate',
  // Issue 35: the operator's treasury (balances, plans; writes move money, never with a project's API key).
  'treasury:read',
  'treasury:write',
  // Issue 37: refunds and payouts (propose, list, cancel; approving is an administrator's, never a token's).
  'refunds:read',
  'refunds:write',
  'payouts:read',
  'payouts:write',
] as const;
export type PatScope = (typeof PAT_SCOPES)[number];

export function isPatScope(value: string): value is PatScope {
  return (PAT_SCOPES as readonly string[]).includes(value);
}
