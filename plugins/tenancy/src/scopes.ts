/** PAT scopes of spec 5.3. */
export const PAT_SCOPES = [
  'projects:read',
  'invoices:read',
  'transactions:read',
  'webhooks:read',
  'invoices:write',
  'webhooks:manage',
  'admin:all',
  'sandbox:simulate',
] as const;
export type PatScope = (typeof PAT_SCOPES)[number];

export function isPatScope(value: string): value is PatScope {
  return (PAT_SCOPES as readonly string[]).includes(value);
}
