/** PAT scopes of spec 5.3, and the treasury's (issue 35). */
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
] as const;
export type PatScope = (typeof PAT_SCOPES)[number];

export function isPatScope(value: string): value is PatScope {
  return (PAT_SCOPES as readonly string[]).includes(value);
}
