import Type, { type Static } from 'typebox';

/**
 * The kernel's own settings. Every key is documented in docs/configuration.md; an unknown key or
 * an invalid value stops start-up with a message naming the key.
 */
export const KernelConfigSchema = Type.Object(
  {
    env: Type.Optional(
      Type.Union([Type.Literal('development'), Type.Literal('production')], {
        description:
          'development (explicitly) allows its conveniences: a generated master key, private webhook targets, sign-in codes in the log. Unset runs with production rules.',
      }),
    ),
    http: Type.Object(
      {
        host: Type.String({ default: '127.0.0.1', description: 'Interface to listen on (env HOST).' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'Port (env PORT); 0 picks a free port.' }),
        baseUrl: Type.Optional(Type.String({ format: 'uri', description: 'Public base URL; defaults to http://<host>:<port>.' })),
        bodyLimitBytes: Type.Integer({
          minimum: 1024,
          maximum: 10_485_760,
          default: 1_048_576,
          description: 'Largest accepted request body; larger gets 413.',
        }),
        shutdownGraceMs: Type.Integer({ minimum: 0, maximum: 120_000, default: 10_000, description: 'How long SIGTERM waits for in-flight requests.' }),
        keepAliveTimeoutMs: Type.Integer({
          minimum: 1000,
          maximum: 3_600_000,
          default: 75_000,
          description:
            'How long an idle keep-alive connection stays open. Above the idle timeout of the proxy or load balancer in front (AWS ALB and nginx: 60 s), so the gateway never closes a connection the proxy is about to reuse.',
        }),
        headersTimeoutMs: Type.Integer({
          minimum: 1000,
          maximum: 300_000,
          default: 80_000,
          description: "How long a client may take to send a request's headers (Node's headersTimeout); at most 300000, Node's request timeout.",
        }),
        trustProxy: Type.Boolean({ default: false, description: 'Trust X-Forwarded-For for client addresses.' }),
        metricsToken: Type.Optional(
          Type.String({
            minLength: 32,
            description:
              'Bearer token /metrics requires (env GW_METRICS_TOKEN). Unset: /metrics answers only connections from loopback that no proxy forwarded.',
          }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    worker: Type.Object(
      {
        http: Type.Object(
          {
            host: Type.String({ default: '127.0.0.1', description: "Interface the worker's own /healthz, /readyz and /metrics listen on." }),
            port: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: 65535,
                description: "Port of the worker's /healthz, /readyz and /metrics (env WORKER_PORT); unset: the worker serves no HTTP. 0 picks a free port.",
              }),
            ),
          },
          { additionalProperties: false, default: {} },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    database: Type.Object(
      {
        url: Type.Optional(Type.String({ minLength: 1, description: 'PostgreSQL URL (env DATABASE_URL). Unset: embedded PostgreSQL.' })),
        listenUrl: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              'PostgreSQL URL of the one LISTEN connection per process (env GW_DATABASE_LISTEN_URL). LISTEN is session state: when database.url is a transaction-mode PgBouncer, point this at PostgreSQL itself or a session-mode pool. Unset: database.url.',
          }),
        ),
        poolMax: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Connections per process for the application pool.' }),
        embeddedDataDir: Type.String({ default: '.data/postgres', description: 'Data folder of the embedded server (project-local).' }),
        embeddedPort: Type.Integer({ minimum: 1, maximum: 65535, default: 54329, description: 'Port of the embedded server.' }),
        embeddedDatabase: Type.String({ default: 'gateway', description: 'Database created in the embedded server.' }),
      },
      { additionalProperties: false, default: {} },
    ),
    jobs: Type.Object(
      {
        schema: Type.String({ pattern: '^[a-z_][a-z0-9_]*$', default: 'pgboss', description: 'PostgreSQL schema of pg-boss.' }),
        poolMax: Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'Connections of the pg-boss pool.' }),
        superviseIntervalSeconds: Type.Integer({
          minimum: 1,
          maximum: 3600,
          default: 60,
          description:
            'How often pg-boss looks for jobs whose worker died (expired active jobs, or those whose heartbeat stopped, are retried) and refreshes its queue cache.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    security: Type.Object(
      {
        masterKey: Type.Optional(
          Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'AES-256-GCM key (64 hex) encrypting API secrets at rest (env GW_MASTER_KEY).' }),
        ),
        previousMasterKeys: Type.Optional(
          Type.String({
            pattern: '^[0-9a-fA-F]{64}(,[0-9a-fA-F]{64})*$',
            description:
              'Master keys being rotated out, comma-separated 64-hex (env GW_PREVIOUS_MASTER_KEYS): secrets sealed under them still open; new ones are sealed under masterKey. docs/deployment.md, "Rotating the master key".',
          }),
        ),
        masterKeyFile: Type.String({
          default: '.data/master.key',
          description: 'Development only: where a generated master key is kept when none is configured.',
        }),
        keyRotationOverlapSeconds: Type.Integer({
          minimum: 0,
          maximum: 2_592_000,
          default: 86_400,
          description: 'How long a rotated-out API secret stays valid.',
        }),
        signedQuery: Type.Union([Type.Literal('optional'), Type.Literal('required')], {
          default: 'optional',
          description:
            'Whether a REST request signature must cover the query string. optional: the pathname alone (spec 5.1 as worded) and the pathname with its raw query both verify; required: only the form with the query (a captured read cannot be sent again with other filters). docs/security.md.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    chains: Type.Object(
      {
        enabled: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
            description:
              'Chains to run, by id (e.g. ["btc", "eth", "ltc"]). Unset: the default chains of the build (the spec\'s seven: btc, eth, tron, ada, polygon, bsc, ton); base and ltc are available but off by default. An unknown id stops start-up.',
          }),
        ),
        testTokenContracts: Type.Record(Type.String(), Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 128 })), {
          default: {},
          description:
            'Token contracts used on test networks: { "<coin>": { "<testnet id>": "<contract>" } }. Testnet projects can invoice the token there and the watcher follows it.',
        }),
        testNetworks: Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 32 }), {
          default: {},
          description:
            'The test network testnet and sandbox projects of a chain use: { "<chain>": "<testnet id>" }, e.g. { "ltc": "regtest", "btc": "regtest" } for local regtest nodes. Unset for a chain: its default testnet (btc signet, ltc testnet, tron shasta, ada preprod). Production projects always use mainnet. A network the chain does not have stops start-up.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object(
      {
        level: Type.Union(
          ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
          {
            default: 'info',
            description: 'pino log level (env LOG_LEVEL).',
          },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    plugins: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
      default: {},
      description: "Per-plugin slices: plugins.<id>.enabled plus the plugin's own keys.",
    }),
  },
  { additionalProperties: false },
);

export type KernelConfig = Static<typeof KernelConfigSchema>;
