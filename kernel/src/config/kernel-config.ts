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
        bodyLimitBytes: Type.Integer({ minimum: 1024, maximum: 10_485_760, default: 1_048_576, description: 'Largest accepted request body; larger gets 413.' }),
        shutdownGraceMs: Type.Integer({ minimum: 0, maximum: 120_000, default: 10_000, description: 'How long SIGTERM waits for in-flight requests.' }),
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
            host: Type.String({ default: '127.0.0.1', description: 'Interface the worker\'s own /healthz, /readyz and /metrics listen on.' }),
            port: Type.Optional(
              Type.Integer({ minimum: 0, maximum: 65535, description: 'Port of the worker\'s /healthz, /readyz and /metrics (env WORKER_PORT); unset: the worker serves no HTTP. 0 picks a free port.' }),
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
          description: 'How often pg-boss looks for jobs whose worker died (expired active jobs are retried).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    security: Type.Object(
      {
        masterKey: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'AES-256-GCM key (64 hex) encrypting API secrets at rest (env GW_MASTER_KEY).' })),
        masterKeyFile: Type.String({ default: '.data/master.key', description: 'Development only: where a generated master key is kept when none is configured.' }),
        keyRotationOverlapSeconds: Type.Integer({ minimum: 0, maximum: 2_592_000, default: 86_400, description: 'How long a rotated-out API secret stays valid.' }),
      },
      { additionalProperties: false, default: {} },
    ),
    chains: Type.Object(
      {
        testTokenContracts: Type.Record(Type.String(), Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 128 })), {
          default: {},
          description:
            'Token contracts used on test networks: { "<coin>": { "<testnet id>": "<contract>" } }. Testnet projects can invoice the token there and the watcher follows it.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object(
      {
        level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), {
          default: 'info',
          description: 'pino log level (env LOG_LEVEL).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    plugins: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
      default: {},
      description: 'Per-plugin slices: plugins.<id>.enabled plus the plugin\'s own keys.',
    }),
  },
  { additionalProperties: false },
);

export type KernelConfig = Static<typeof KernelConfigSchema>;
