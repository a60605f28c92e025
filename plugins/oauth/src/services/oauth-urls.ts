import type { Context } from 'koa';
import { trimTrailing } from '@gw/kernel';
import type { KernelConfig } from '@gw/kernel';
import { OAUTH_SCOPES } from '../scopes.js';

/** The addresses of one deployment, as the metadata documents and every check use them. */
export interface OAuthAddresses {
  /** {base_url} without a trailing slash: the issuer. */
  readonly baseUrl: string;
  /** {mcp_url} without a trailing slash. */
  readonly mcpUrl: string;
  /** The one canonical resource string, `{mcp_url}/api/mcp/transport` (spec 5.4 rule 6). */
  readonly resource: string;
  /** `{mcp_url}/.well-known/oauth-protected-resource` (for `WWW-Authenticate: resource_metadata=`). */
  readonly protectedResourceMetadataUrl: string;
  /** Whether cookies get `Secure` (the base URL is https). */
  readonly secure: boolean;
}

/** Path of the MCP transport below {mcp_url}. */
export const MCP_TRANSPORT_PATH = '/api/mcp/transport';

function trimUrl(value: string, key: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${key} is not an absolute URL: ${value}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${key} must be an http(s) URL: ${value}`);
  if (url.search || url.hash || url.username || url.password) throw new Error(`${key} must not carry a query, fragment or credentials: ${value}`);
  return trimTrailing(url.href, '/');
}

/**
 * Resolves {base_url} and {mcp_url}. Configured values win (`http.baseUrl`, `plugins.oauth.mcpUrl`);
 * without them the base URL is `http://<listen host>:<listening port>`, taken from the socket the
 * request came in on (never from the Host header, which the caller controls), and {mcp_url}
 * defaults to the base URL. Behind a proxy, or with several instances, configure both.
 */
export class OAuthUrls {
  private readonly configuredBase: string | undefined;
  private readonly configuredMcp: string | undefined;

  constructor(kernelConfig: KernelConfig, mcpUrl: string | undefined) {
    this.configuredBase = kernelConfig.http.baseUrl ? trimUrl(kernelConfig.http.baseUrl, 'http.baseUrl') : undefined;
    this.configuredMcp = mcpUrl ? trimUrl(mcpUrl, 'plugins.oauth.mcpUrl') : undefined;
    this.listenHost = kernelConfig.http.host;
    this.listenPort = kernelConfig.http.port;
  }

  private readonly listenHost: string;
  private readonly listenPort: number;

  /** The addresses as seen by a request on this process. */
  forRequest(ctx: Pick<Context, 'socket'>): OAuthAddresses {
    const baseUrl = this.configuredBase ?? this.derivedBase(ctx.socket.localPort);
    const mcpUrl = this.configuredMcp ?? baseUrl;
    return {
      baseUrl,
      mcpUrl,
      resource: `${mcpUrl}${MCP_TRANSPORT_PATH}`,
      protectedResourceMetadataUrl: `${mcpUrl}/.well-known/oauth-protected-resource`,
      secure: baseUrl.startsWith('https:'),
    };
  }

  private derivedBase(socketPort: number | undefined): string {
    let host = this.listenHost;
    if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
    if (host === '::') host = '::1';
    if (host.includes(':')) host = `[${host}]`;
    const port = this.listenPort === 0 ? (socketPort ?? 0) : this.listenPort;
    return `http://${host}:${port}`;
  }
}

/** RFC 8414 authorization-server metadata (spec 2.7). */
export function authorizationServerMetadata(a: OAuthAddresses): Record<string, unknown> {
  return {
    issuer: a.baseUrl,
    authorization_endpoint: `${a.baseUrl}/oauth/authorize`,
    token_endpoint: `${a.baseUrl}/oauth/token`,
    registration_endpoint: `${a.baseUrl}/oauth/register`,
    revocation_endpoint: `${a.baseUrl}/oauth/revoke`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    service_documentation: `${a.baseUrl}/api/v1/docs`,
    client_id_metadata_document_supported: true,
    resource_documents_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 protected-resource metadata of the MCP endpoint (spec 2.7). */
export function protectedResourceMetadata(a: OAuthAddresses, resourceName: string): Record<string, unknown> {
  return {
    resource: a.resource,
    authorization_servers: [a.baseUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${a.baseUrl}/api/v1/docs`,
    resource_signing_alg_values_supported: [],
    resource_name: resourceName,
  };
}
