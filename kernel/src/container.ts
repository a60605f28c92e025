import { createContainer, InjectionMode, type AwilixContainer } from 'awilix';

/**
 * Everything resolvable from the container. The kernel declares its own services here; plugins
 * add theirs by declaration merging:
 *
 * ```ts
 * declare module '@gw/kernel' { interface Cradle { tenancyProjects: ProjectService } }
 * ```
 *
 * Services, plugin parts and CLI commands declare the names they read and receive a view of the
 * cradle holding only those (ADR 0009); nothing outside the kernel reads the whole cradle or calls
 * `container.resolve()`.
 */
export interface Cradle {
  readonly kernelConfig: import('./config/kernel-config.js').KernelConfig;
  /** What this process runs: `worker` and `all` run jobs, `gateway` and `all` serve HTTP. */
  readonly kernelRole: import('./kernel.js').KernelRole;
  readonly logger: import('pino').Logger;
  readonly db: import('knex').Knex;
  readonly jobs: import('./jobs/job-queue.js').JobQueue;
  /** LISTEN/NOTIFY across instances: live updates announced in the transaction of the change. */
  readonly notifications: import('./db/notifications.js').Notifications;
  readonly metrics: import('./http/metrics.js').Metrics;
  readonly rateLimiter: import('./rate-limit/rate-limiter.js').RateLimiter;
  readonly secretBox: import('./crypto/secret-box.js').SecretBox;
  readonly audit: import('./audit/audit-log.js').AuditLog;
  readonly chains: import('./chain-registry.js').ChainRegistry;
  readonly invoiceEvents: import('./events/invoice-events.js').InvoiceEvents;
  /** Every enabled plugin's MCP tools, in plugin order. */
  readonly mcpTools: readonly import('./mcp/mcp-tool.js').McpToolDefinition[];
  /** Every enabled plugin's contributions to each extension point (ADR 0011). */
  readonly extensions: import('./extensions/extension-point.js').Extensions;
  /** Ends a user's sessions or all their access in every enabled plugin (tenancy calls it). */
  readonly userAccess: import('./users/user-access.js').UserAccess;
  /** Where the running gateway processes listen (recorded in the database; `gateway doctor`). */
  readonly httpListeners: import('./http/http-listeners.js').HttpListeners;
  /** The readiness checks of the kernel and every enabled plugin (`gateway doctor`, ADR 0007). */
  readonly readiness: import('./readiness/readiness.js').Readiness;
}

/**
 * The root container: strict mode (a singleton can never depend on a shorter-lived registration,
 * and resolving an unregistered name throws at once), PROXY injection so factories take the cradle.
 */
export function createRootContainer(): AwilixContainer<Cradle> {
  return createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
}
