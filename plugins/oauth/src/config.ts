import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

/**
 * Config slice `plugins.oauth` (docs/configuration.md, plugins/oauth/README.md). Token lifetimes
 * are fixed by the spec (section 8: access 3600 s, refresh 30 days) and are not configurable.
 */
export const OAuthConfigSchema = configSlice({
  mcpUrl: Type.Optional(
    Type.String({
      format: 'uri',
      description: '{mcp_url}: public address of the MCP server. Default: the base URL (http.baseUrl, else http://<host>:<port>).',
    }),
  ),
  resourceName: Type.String({
    minLength: 1,
    maxLength: 200,
    default: 'Crypto payment gateway MCP',
    description: '`resource_name` of the protected-resource metadata.',
  }),
  refreshLeewaySeconds: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 10,
    description:
      'How long after a rotation the just-consumed refresh token, presented again by the same client, returns the same successor pair instead of counting as a replay (0 turns it off).',
  }),
  codeTtlSeconds: Type.Integer({ minimum: 10, maximum: 600, default: 60, description: 'Lifetime of an authorization code (`oac_`).' }),
  requestTtlSeconds: Type.Integer({ minimum: 60, maximum: 3600, default: 900, description: 'How long a browser may take from /oauth/authorize to consent.' }),
  sessionTtlSeconds: Type.Integer({ minimum: 300, maximum: 2_592_000, default: 28_800, description: 'Lifetime of a browser sign-in session (the cookie).' }),
  authorizePerMinutePerIp: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 60,
    description:
      'GET /oauth/authorize requests per client address and minute (each writes a session and a request, and may fetch a document); a 429 page with Retry-After beyond.',
  }),
  registrationsPerHourPerIp: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 10,
    description: 'Dynamic registrations per source IP and hour (spec 8); 429 with Retry-After beyond.',
  }),
  emailCode: Type.Object(
    {
      ttlSeconds: Type.Integer({ minimum: 60, maximum: 3600, default: 600, description: 'Lifetime of a sign-in code.' }),
      maxAttempts: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Wrong entries before a code is dead.' }),
      wrongPerHourPerAddress: Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 10,
        description:
          'Wrong codes per e-mail address in any rolling hour, over all its codes; at the cap every code of the address is refused (even the right one) until the oldest wrong entry is an hour old.',
      }),
      sendsPerHour: Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 5,
        description: 'Codes per e-mail address, requester (client address) and hour, and per browser session and hour.',
      }),
      sendsPerHourPerIp: Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 20,
        description: 'Codes per requester (client address) and hour, whatever the e-mail address.',
      }),
      sendsPerHourPerAddress: Type.Integer({
        minimum: 2,
        maximum: 100_000,
        default: 30,
        description:
          'Codes per e-mail address and hour from all requesters together. Must be larger than sendsPerHour, so that one requester alone cannot use it up.',
      }),
    },
    { additionalProperties: false, default: {} },
  ),
  smtp: Type.Object(
    {
      url: Type.Optional(
        Type.String({
          minLength: 1,
          description:
            'nodemailer SMTP URL, e.g. smtps://user:pass@mail.example.com:465. Unset: codes are logged in development, sign-in is unavailable in production.',
        }),
      ),
      from: Type.String({ minLength: 3, default: 'Gateway <no-reply@localhost>', description: 'From header of sign-in mails.' }),
    },
    { additionalProperties: false, default: {} },
  ),
  clientDocuments: Type.Object(
    {
      ttlSeconds: Type.Integer({
        minimum: 60,
        maximum: 604_800,
        default: 3600,
        description: 'How long a fetched client metadata document is used before it is fetched again, when its Cache-Control names no max-age.',
      }),
      minTtlSeconds: Type.Integer({
        minimum: 10,
        maximum: 86_400,
        default: 60,
        description: 'Shortest use of a fetched document (Cache-Control max-age, no-cache and no-store are raised to it).',
      }),
      maxTtlSeconds: Type.Integer({
        minimum: 60,
        maximum: 2_592_000,
        default: 86_400,
        description: 'Longest use of a fetched document (a larger Cache-Control max-age is cut to it).',
      }),
      failureTtlSeconds: Type.Integer({
        minimum: 5,
        maximum: 3600,
        default: 60,
        description: 'How long a document that could not be fetched or was invalid is refused without being fetched again (negative cache, in PostgreSQL).',
      }),
      fetchesPerMinutePerHost: Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 30,
        description:
          'Document fetches per source host (host:port of the client_id URL) and minute, counted in PostgreSQL; beyond, a cached copy is used if any, else the client is refused.',
      }),
      maxBytes: Type.Integer({ minimum: 256, maximum: 65_536, default: 5120, description: 'Largest accepted document; larger is refused.' }),
      timeoutMs: Type.Integer({ minimum: 100, maximum: 30_000, default: 5000, description: 'Whole fetch (connect to last byte).' }),
      allowPrivateAddresses: Type.Boolean({
        default: false,
        description: 'Tests only: fetch documents from private, loopback and link-local addresses. Refused when env is production.',
      }),
      extraCaPem: Type.Optional(
        Type.String({ minLength: 1, description: 'Tests only: a PEM certificate trusted besides the system roots. Refused when env is production.' }),
      ),
    },
    { additionalProperties: false, default: {} },
  ),
});

export type OAuthConfig = Static<typeof OAuthConfigSchema>;
