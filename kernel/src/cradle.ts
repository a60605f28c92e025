// A leaf: the cradle names the kernel's service types through type-only imports of modules that
// import nothing of the kernel's wiring (container, plugin, loader, kernel), so no import cycle
// runs through it (issue 34 item 4). Plugins augment it as `declare module '@gw/kernel'`.

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
  readonly kernelRole: import('./kernel-role.js').KernelRole;
  readonly logger: import('pino').Logger;
  readonly db: import('knex').Knex;
  readonly jobs: import('./jobs/job-queue.js').JobQueue;
  /** LISTEN/NOTIFY across instances: live updates announced in the transaction of the change. */
  readonly notifications: import('./db/notifications.js').Notifications;
  readonly metrics: import('./http/metrics.js').Metrics;
  readonly rateLimiter: import('./rate-limit/rate-limiter.js').RateLimiter;
  readonly secretBox: import('./crypto/secret-box.js').SecretBox;
  readonly audit: import('./audit/audit-log.js').AuditLog;
  readonly chains: import('@gw/chain-api').ChainRegistry;
  readonly invoiceEvents: import('./events/outbound-events.js').OutboundEvents;
  /** Every enabled plugin's MCP tools, in plugin order. */
  readonly mcpTools: readonly import('./mcp/mcp-tool.js').McpToolDefinition[];
  /** Every enabled plugin's contributions to each extension point (ADR 0011). */
  readonly extensions: import('./extensions/extension-point.js').Extensions;
  /** Ends a user's sessions or all their access in every enabled plugin (tenancy calls it). */
  readonly userAccess: import('./users/user-access.js').UserAccess;
  /** Where the running gateway processes listen (recorded in the database; `gateway doctor`). */
  readonly httpListeners: import('./http/http-listeners.js').HttpListeners;
  /** The readiness checks of the kernel and every enabled plugin (`gateway doctor`, ADR 0007). */
  readonly readiness: import('./readiness/readiness-check.js').Readiness;
}
