/** The OAuth scope set of spec 5.4 rule 9; every other PAT scope stays PAT-only. */
export const OAUTH_SCOPES = ['projects:read', 'invoices:read', 'transactions:read', 'webhooks:read'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What the consent page says each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  'projects:read': 'See your projects and their settings',
  'invoices:read': 'See invoices and their status',
  'transactions:read': 'See on-chain transactions of your invoices',
  'webhooks:read': 'See webhook events and their delivery log',
};

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/**
 * Parses a `scope` parameter (space-separated). Omitted or empty means all four (docs/decisions.md).
 * Returns the scopes in canonical order, or the first unknown one.
 */
export function parseScope(value: string | undefined): { scopes: OAuthScope[] } | { unknown: string } {
  if (value === undefined || value.trim() === '') return { scopes: [...OAUTH_SCOPES] };
  const requested = value.split(' ').filter(Boolean);
  for (const scope of requested) if (!isOAuthScope(scope)) return { unknown: scope };
  return { scopes: OAUTH_SCOPES.filter((s) => requested.includes(s)) };
}
