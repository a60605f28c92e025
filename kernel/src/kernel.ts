import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { asFunction, asValue, type AwilixContainer } from 'awilix';
import type { Knex } from 'knex';
import { pino, type Logger } from 'pino';
import type { KernelConfig } from './config/kernel-config.js';
import { createRootContainer, type Cradle } from './container.js';
import { createChainRegistry } from '@gw/chain-api';
import { bindChainIds, bindToolChainIds } from './http/chain-id-schemas.js';
import type { ChainModule } from '@gw/chain-api';
import { createKnex } from './db/create-knex.js';
import { createNotifications, type Notifications } from './db/notifications.js';
import { createUserAccess } from './users/user-access.js';
import { createExtensions } from './extensions/extensions.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './db/embedded-postgres.js';
import { kernelMigrations } from './db/kernel-migrations.js';
import { runMigrations, pendingMigrations, type OwnedMigrations } from './db/migration-runner.js';
import { createJobQueue, type JobQueueRuntime } from './jobs/job-queue.js';
import type { JobDefinition } from './jobs/job-definition.js';
import { loadPlugins, type LoadedPlugin } from './loader.js';
import type { AnyPlugin } from './plugin.js';
import { servicePrefix } from './plugin.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimiter } from './rate-limit/rate-limiter.js';
import { createSecretBox } from './crypto/secret-box.js';
import { previousMasterKeys, resolveMasterKey } from './crypto/master-key.js';
import { runMode } from './config/run-mode.js';
import { createAuditLog } from './audit/audit-log.js';
import { createOutboundEvents } from './events/outbound-events.js';
import { requestIdMiddleware } from './http/request-id.js';
import { answerReplayMiddleware } from './http/answer-replay.js';
import { errorMiddleware } from './http/error-middleware.js';
import { bodyReaderMiddleware } from './http/body-reader.js';
import { mountRoutes } from './http/mount-routes.js';
import { createIndexedRouter } from './http/route-index.js';
import type { Authenticator } from './http/authenticator.js';
import type { RouteDefinition } from './http/route.js';
import { systemRoutes } from './http/system-routes.js';
import { API_REFERENCE_PATH, openApiRoutes } from './http/openapi-routes.js';
import { rootRedirect } from './http/root-redirect.js';
import { createHttpListeners } from './http/http-listeners.js';
import { coreErrors } from './errors/core-errors.js';
import type { CliCommand } from './cli/command.js';
import { createReadiness, runReadinessChecks, type ReadinessReport } from './readiness/readiness.js';
import { registerJobQueueGauge } from './jobs/job-queue-metrics.js';
import { buildDeclared, serviceDeclaration } from './deps.js';
import { checkDeclaredDeps } from './declared-deps-check.js';
import type { KernelRole } from './kernel-role.js';

export type { KernelRole } from './kernel-role.js';

export interface KernelOptions {
  readonly config: KernelConfig;
  readonly plugins: readonly AnyPlugin[];
  readonly chains?: readonly ChainModule[];
  readonly role: KernelRole;
  /** Logger to use; default pino on stdout at `config.log.level`. */
  readonly logger?: Logger;
  /** Run pending migrations during start (default true; the CLI's `db migrate` does it itself). */
  readonly migrate?: boolean;
}

/** A started (or startable) gateway process. */
export interface Kernel {
  readonly config: KernelConfig;
  readonly logger: Logger;
  readonly container: AwilixContainer<Cradle>;
  readonly cradle: Cradle;
  readonly plugins: readonly LoadedPlugin[];
  /** Every route mounted (for OpenAPI generation). */
  readonly routes: readonly RouteDefinition[];
  /** Every CLI command of the enabled plugins. */
  readonly commands: readonly CliCommand[];
  /** The HTTP server once listening (gateway and all roles). */
  readonly server: Server | undefined;
  /**
   * The URL the server listens on, e.g. `http://127.0.0.1:8080`. A worker with
   * `worker.http.port` set serves `/healthz`, `/readyz` and `/metrics` there.
   */
  readonly url: string | undefined;
  /** The Koa app (gateway and all roles), for in-process tests. */
  readonly app: Koa | undefined;
  start(): Promise<void>;
  /** Graceful: stop accepting, drain HTTP, stop workers, stop plugins, dispose, close pools. */
  stop(): Promise<void>;
  /** Connects the database and wires the container without starting anything (CLI, tooling). */
  connect(): Promise<void>;
  /** Applies pending migrations; returns the names that ran. */
  migrate(): Promise<string[]>;
  pendingMigrations(): Promise<string[]>;
  /** Runs the readiness checks of the kernel and every enabled plugin (`gateway doctor`). */
  readiness(): Promise<ReadinessReport>;
  /**
   * Re-seals every ciphertext of the enabled plugins' `sealedColumns` that opens only under a
   * previous master key (`security.previousMasterKeys`) under the current one, table by table in
   * one transaction each. Returns the counts per column.
   */
  resealSecrets(): Promise<{ table: string; column: string; rows: number; resealed: number }[]>;
}

const KERNEL_JOBS = (cradle: Cradle): JobDefinition[] => [
  {
    name: 'kernel.rate-limit-sweep',
    schedule: { cron: '17 * * * *' },
    handler: async () => {
      const removed = await cradle.rateLimiter.sweep();
      cradle.logger.debug({ removed }, 'swept expired rate-limit windows');
    },
  },
];

/**
 * Builds a kernel from explicit plugins and chains (config only enables, disables and
 * parameterises them). Nothing happens until `start()`; a failure anywhere in start-up stops the
 * process (the caller exits non-zero): a payment service never limps on half-loaded.
 */
export function createKernel(options: KernelOptions): Kernel {
  const { config, role } = options;
  const logger = options.logger ?? pino({ level: config.log.level, base: { role } });
  const loaded = loadPlugins(options.plugins, config);
  // Built before anything connects: a config enabling an unknown chain, or an inconsistent chain
  // definition, stops the process before it touches the database.
  const chainRegistry = createChainRegistry(options.chains ?? [], logger, {
    testTokenContracts: config.chains.testTokenContracts,
    testNetworks: config.chains.testNetworks,
    enabled: config.chains.enabled,
  });
  const container = createRootContainer();
  const routes: RouteDefinition[] = [];
  const commands: CliCommand[] = loaded.flatMap(({ plugin }) => plugin.cli ?? []);
  const migrations: OwnedMigrations[] = [
    { owner: 'kernel', migrations: kernelMigrations },
    ...loaded.map(({ plugin }) => ({ owner: plugin.id, migrations: plugin.migrations ?? [] })),
  ];
  let embedded: EmbeddedPostgresHandle | undefined;
  let jobQueue: JobQueueRuntime | undefined;
  let server: Server | undefined;
  let app: Koa | undefined;
  let url: string | undefined;
  let accepting = false;
  let started = false;
  let listenerRecorded = false;
  let connected = false;
  let stopping: Promise<void> | undefined;
  const startedPlugins: AnyPlugin[] = [];

  async function connectDatabase(): Promise<string> {
    if (config.database.url) return config.database.url;
    embedded = await startEmbeddedPostgres({
      dataDir: config.database.embeddedDataDir,
      port: config.database.embeddedPort,
      database: config.database.embeddedDatabase,
      logger,
    });
    return embedded.url;
  }

  function registerCore(databaseUrl: string, masterKey: string): void {
    jobQueue = createJobQueue({
      url: databaseUrl,
      schema: config.jobs.schema,
      poolMax: config.jobs.poolMax,
      superviseIntervalSeconds: config.jobs.superviseIntervalSeconds,
      logger,
    });
    const queue = jobQueue;
    container.register({
      kernelConfig: asValue(config),
      kernelRole: asValue(role),
      logger: asValue(logger),
      db: asFunction(() => createKnex(databaseUrl, config.database.poolMax))
        .singleton()
        .disposer((knex: Knex) => knex.destroy()),
      // LISTEN holds session state: with a transaction-mode PgBouncer in database.url it needs its own URL.
      notifications: asFunction(() => createNotifications({ url: (config.database.url && config.database.listenUrl) || databaseUrl, logger }))
        .singleton()
        .disposer((notifications: Notifications) => notifications.close()),
      jobs: asValue(queue),
      metrics: asFunction(createMetrics).singleton(),
      rateLimiter: asFunction(({ db }: Cradle) => createRateLimiter(db)).singleton(),
      secretBox: asValue(createSecretBox(masterKey, previousMasterKeys(config))),
      audit: asFunction(({ db }: Cradle) => createAuditLog(db)).singleton(),
      chains: asValue(chainRegistry),
      invoiceEvents: asValue(createOutboundEvents(logger)),
      httpListeners: asFunction(({ db }: Cradle) => createHttpListeners(db)).singleton(),
      readiness: asFunction((cradle: Cradle) => createReadiness(cradle, loaded)).singleton(),
      mcpTools: asFunction((cradle: Cradle) =>
        bindToolChainIds(
          loaded.flatMap(({ plugin }) => (plugin.mcpTools ? buildDeclared(plugin.mcpTools, cradle, `mcpTools of plugin "${plugin.id}"`) : [])),
          chainRegistry,
        ),
      ).singleton(),
      extensions: asFunction((cradle: Cradle) => createExtensions(cradle, loaded)).singleton(),
      userAccess: asFunction((cradle: Cradle) =>
        createUserAccess(() =>
          loaded.flatMap(({ plugin }) =>
            plugin.userAccessEnders ? buildDeclared(plugin.userAccessEnders, cradle, `userAccessEnders of plugin "${plugin.id}"`) : [],
          ),
        ),
      ).singleton(),
    });
    const kernelServices = new Set(Object.keys(container.registrations));
    for (const { plugin, config: slice } of loaded) {
      const resolvers = plugin.register?.({ config: slice, kernelConfig: config, logger: logger.child({ plugin: plugin.id }) }) ?? {};
      const prefix = servicePrefix(plugin.id);
      for (const [name, resolver] of Object.entries(resolvers)) {
        if (!name.startsWith(prefix)) throw new Error(`plugin "${plugin.id}" registers "${name}": service names must start with "${prefix}"`);
        if (container.hasRegistration(name)) throw new Error(`service "${name}" is registered twice`);
        if (!serviceDeclaration(resolver)) {
          throw new Error(`plugin "${plugin.id}" registers "${name}" without service() or serviceValue(): a service declares the services it reads (ADR 0009)`);
        }
        container.register(name, resolver);
      }
    }
    checkDeclaredDeps(loaded, container, kernelServices);
  }

  function buildApp(authenticators: ReadonlyMap<string, Authenticator>): Koa {
    // One trusted proxy: the client address is the last X-Forwarded-For entry (the one the proxy
    // appended), never a left-most entry the client wrote itself.
    const koa = new Koa({ proxy: config.http.trustProxy, maxIpsCount: 1 });
    const router = createIndexedRouter();
    const metrics = container.cradle.metrics;
    koa.use(async (ctx, next) => {
      const end = metrics.httpDuration.startTimer();
      try {
        await next();
      } finally {
        const route = typeof ctx['_matchedRoute'] === 'string' ? (ctx['_matchedRoute'] as string) : 'unmatched';
        metrics.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
        const seconds = end({ method: ctx.method, route });
        logger.info({ requestId: ctx.state['requestId'], method: ctx.method, route, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
      }
    });
    koa.use(requestIdMiddleware());
    koa.use(answerReplayMiddleware(logger));
    koa.use(
      errorMiddleware(
        logger,
        loaded.flatMap(({ plugin }) =>
          plugin.errorFormats ? buildDeclared(plugin.errorFormats, container.cradle, `errorFormats of plugin "${plugin.id}"`) : [],
        ),
      ),
    );
    koa.use(async (ctx, next) => {
      if (!accepting && !ctx.path.startsWith('/healthz')) {
        ctx.set('Connection', 'close');
        throw coreErrors.service_unavailable();
      }
      await next();
    });
    koa.use(bodyReaderMiddleware(config.http.bodyLimitBytes));
    mountRoutes(router, routes, authenticators);
    koa.use(router.routes());
    // An unknown method (PROPFIND) is 405 like a known one on the wrong path, never a bare 501.
    koa.use(
      router.allowedMethods({ throw: true, methodNotAllowed: () => coreErrors.method_not_allowed(), notImplemented: () => coreErrors.method_not_allowed() }),
    );
    return koa;
  }

  async function listen(koa: Koa, port: number, iface: string): Promise<void> {
    server = createServer(koa.callback());
    // Idle keep-alive connections outlive the proxy's own idle timeout (docs/deployment.md): were the
    // gateway to close first, a proxy reusing the connection at that moment gets a reset (502).
    server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
    server.headersTimeout = config.http.headersTimeoutMs;
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, iface, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
  }

  /**
   * `/readyz` details: the readiness report, reused for 10 s (load balancers poll often; the
   * report is informational and never decides readiness, so a slightly old one is harmless).
   */
  let readinessCache: { at: number; report: Promise<ReadinessReport> } | undefined;
  function recentReadiness(): Promise<ReadinessReport> {
    if (!readinessCache || Date.now() - readinessCache.at > 10_000) {
      const report = kernel.readiness();
      readinessCache = { at: Date.now(), report };
      report.catch(() => (readinessCache = undefined));
    }
    return readinessCache.report;
  }

  /** Start-up: what is missing for real payments, in the log (the same checks as `gateway doctor`). */
  async function logReadiness(): Promise<void> {
    const report = await kernel.readiness();
    for (const finding of report.checks) {
      if (finding.ok) continue;
      logger[finding.severity === 'error' ? 'warn' : 'info'](
        { check: finding.check, severity: finding.severity, fix: finding.fix },
        `not ready for real payments: ${finding.detail}`,
      );
    }
    logger.info(
      { errors: report.errors, warnings: report.warnings },
      report.ready ? 'readiness: nothing missing for real payments' : `readiness: ${report.errors} problem(s) block real payments; run "gateway doctor"`,
    );
  }

  const kernel: Kernel = {
    config,
    logger,
    container,
    get cradle() {
      return container.cradle;
    },
    plugins: loaded,
    routes,
    commands,
    get server() {
      return server;
    },
    get url() {
      return url;
    },
    get app() {
      return app;
    },
    async connect() {
      if (connected) return;
      connected = true;
      // Before the database: a refused start-up must not create the embedded server's data.
      const masterKey = resolveMasterKey(config);
      const mode = runMode(config);
      logger.info({ env: mode.env, explicit: mode.explicit, role }, `running in ${mode.env} mode: ${mode.reason}`);
      // A configured test network (a local regtest node's) is said at every start, never taken silently.
      for (const chain of Object.keys(config.chains.testNetworks).filter((id) => chainRegistry.has(id))) {
        const network = chainRegistry.get(chain).definition.networks.testnets[0];
        logger.info(
          { chain, network: network.id },
          `testnet and sandbox projects of ${chain} use ${network.name} (chains.testNetworks.${chain}); production projects use mainnet`,
        );
      }
      registerCore(await connectDatabase(), masterKey);
    },
    async start() {
      if (started) throw new Error('kernel already started');
      started = true;
      await kernel.connect();
      const cradle = container.cradle;
      if (options.migrate !== false) {
        const ran = await runMigrations(cradle.db, migrations);
        if (ran.length > 0) logger.info({ migrations: ran }, 'migrations applied');
      }
      await jobQueue!.start();
      registerJobQueueGauge(cradle.metrics.registry, jobQueue!, logger);
      const jobDefinitions = [
        ...KERNEL_JOBS(cradle),
        ...loaded.flatMap(({ plugin }) => (plugin.jobs ? buildDeclared(plugin.jobs, cradle, `jobs of plugin "${plugin.id}"`) : [])),
      ];
      await jobQueue!.declareQueues(jobDefinitions);
      if (role === 'worker' || role === 'all') await jobQueue!.schedule(jobDefinitions);
      for (const { plugin } of loaded) {
        try {
          if (plugin.start) await buildDeclared(plugin.start, cradle, `start of plugin "${plugin.id}"`);
        } catch (error) {
          throw new Error(`plugin "${plugin.id}" failed to start: ${(error as Error).message}`, { cause: error });
        }
        startedPlugins.push(plugin);
      }
      if (role === 'worker' || role === 'all') await jobQueue!.startWorkers(jobDefinitions);
      if (role === 'gateway' || role === 'all') {
        const authenticators = new Map<string, Authenticator>();
        for (const { plugin } of loaded) {
          for (const [name, authenticator] of Object.entries(
            plugin.authenticators ? buildDeclared(plugin.authenticators, cradle, `authenticators of plugin "${plugin.id}"`) : {},
          )) {
            if (authenticators.has(name)) throw new Error(`authenticator "${name}" is provided twice`);
            authenticators.set(name, authenticator);
          }
        }
        routes.push(...systemRoutes(cradle, { isAccepting: () => accepting, readiness: recentReadiness }));
        // The document is built from `routes` on first request, so it covers the plugin routes below.
        routes.push(
          ...openApiRoutes({
            routes,
            errorCatalogues: loaded.flatMap(({ plugin }) => plugin.errors ?? []),
            baseUrl: config.http.baseUrl,
            signedQuery: config.security.signedQuery,
          }),
        );
        for (const { plugin } of loaded)
          routes.push(
            ...(plugin.routes ? buildDeclared(plugin.routes, cradle, `routes of plugin "${plugin.id}"`) : []).map((route) =>
              bindChainIds(route, chainRegistry),
            ),
          );
        // A browser opening the gateway's address gets a page, not the JSON 404: a plugin may own `/`
        // (the dashboard does); otherwise the API reference.
        if (!routes.some((r) => r.method === 'GET' && r.path === '/')) routes.push(rootRedirect(API_REFERENCE_PATH));
        app = buildApp(authenticators);
        await listen(app, config.http.port, config.http.host);
        await cradle.httpListeners.record(url!, role);
        listenerRecorded = true;
        accepting = true;
      } else if (role === 'worker' && config.worker.http.port !== undefined) {
        // The worker's own /healthz, /readyz and /metrics (same access rules as the gateway's).
        routes.push(...systemRoutes(cradle, { isAccepting: () => accepting, readiness: recentReadiness }));
        app = buildApp(new Map());
        await listen(app, config.worker.http.port, config.worker.http.host);
        accepting = true;
      }
      if (role !== 'cli') await logReadiness();
    },
    stop() {
      stopping ??= (async () => {
        accepting = false;
        if (server) {
          const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
          server.closeIdleConnections();
          const timer = setTimeout(() => server!.closeAllConnections(), config.http.shutdownGraceMs);
          await closed;
          clearTimeout(timer);
        }
        if (jobQueue) await jobQueue.stop(config.http.shutdownGraceMs);
        if (listenerRecorded)
          await container.cradle.httpListeners
            .remove()
            .catch((error: unknown) => logger.warn({ err: error }, "could not remove this gateway's listening address"));
        for (const plugin of [...startedPlugins].reverse()) {
          try {
            if (plugin.stop) await buildDeclared(plugin.stop, container.cradle, `stop of plugin "${plugin.id}"`);
          } catch (error) {
            logger.error({ err: error, plugin: plugin.id }, 'plugin failed to stop cleanly');
          }
        }
        await container.dispose();
        if (embedded) await embedded.stop();
      })();
      return stopping;
    },
    async migrate() {
      await kernel.connect();
      return runMigrations(container.cradle.db, migrations);
    },
    async readiness() {
      await kernel.connect();
      return runReadinessChecks(container.cradle.readiness.checks());
    },
    async pendingMigrations() {
      await kernel.connect();
      return pendingMigrations(container.cradle.db, migrations);
    },
    async resealSecrets() {
      await kernel.connect();
      const { db, secretBox } = container.cradle;
      const report: { table: string; column: string; rows: number; resealed: number }[] = [];
      for (const { plugin } of loaded) {
        for (const sealed of plugin.sealedColumns ?? []) {
          report.push(
            await db.transaction(async (trx) => {
              const rows = (await trx(sealed.table).select('id', sealed.column).whereNotNull(sealed.column).forUpdate()) as Record<string, string>[];
              let resealed = 0;
              for (const row of rows) {
                const next = secretBox.reseal(row[sealed.column]!, sealed.aad(row['id']!));
                if (next === undefined) continue;
                await trx(sealed.table)
                  .where({ id: row['id'] })
                  .update({ [sealed.column]: next });
                resealed += 1;
              }
              return { table: sealed.table, column: sealed.column, rows: rows.length, resealed };
            }),
          );
        }
      }
      return report;
    },
  };
  return kernel;
}
