import type { Resolver } from 'awilix';
import type { TSchema, Static } from 'typebox';
import type { Logger } from 'pino';
import type { ErrorCatalogue, ErrorSpec } from '@gw/chain-api';
import type { Migration } from './db/migration.js';
import type { JobDefinition } from './jobs/job-definition.js';
import type { ErrorFormat, RouteDefinition } from './http/route.js';
import type { Authenticator } from './http/authenticator.js';
import type { CliCommand } from './cli/command.js';
import type { McpToolDefinition } from './mcp/mcp-tool.js';
import type { KernelConfig } from './config/kernel-config.js';
import type { ReadinessCheck } from './readiness/readiness-check.js';
import type { Declared, ServiceName } from './deps.js';
import type { UserAccessEnder } from './users/user-access.js';
import type { Contribution } from './extensions/contribution.js';

/**
 * A plugin part built from the container, declared with `withDeps`: it sees only the services it
 * names (ADR 0009), never the whole container.
 */
export type PluginPart<T> = Declared<T>;

/** What `register` receives: the plugin's validated config slice and the kernel's settings. */
export interface RegisterContext<TConfig> {
  readonly config: TConfig;
  readonly kernelConfig: KernelConfig;
  readonly logger: Logger;
}

/**
 * A plugin is one object (architecture guide, "Contracts").
 *
 * The loader refuses duplicate ids and missing dependencies, orders plugins by `dependsOn`,
 * validates each plugin's config slice against `config` (a TypeBox schema whose defaults apply),
 * and refuses to start when any plugin fails to register or start. Disabled plugins (config file or
 * environment) are skipped entirely; a plugin whose dependency is disabled makes start-up fail.
 *
 * Lifecycle, in dependency order: `register` (container wiring, no I/O) → migrations (collected
 * over every enabled plugin) → queues created → `start` → HTTP routes / job workers begin. On
 * shutdown `stop` runs in reverse order after HTTP has drained and workers have stopped, then the
 * container disposes singletons.
 */
export interface PluginDefinition<TConfigSchema extends TSchema = TSchema> {
  /** Lower-case id, `[a-z][a-z0-9-]*`. Also the prefix of every service the plugin registers. */
  readonly id: string;
  /** Ids of plugins that must be enabled and are registered and started before this one. */
  readonly dependsOn?: readonly string[];
  /** TypeBox schema of the plugin's config slice (`plugins.<id>` in the config file). */
  readonly config?: TConfigSchema;
  /** Whether the plugin is enabled when config says nothing. Default true. */
  readonly enabledByDefault?: boolean;
  /** The plugin's error catalogues; collected for docs/errors.md and duplicate-code checks. */
  readonly errors?: readonly ErrorCatalogue<Record<string, ErrorSpec>>[];
  /** The plugin's own migrations in order. Names must be unique within the plugin. */
  readonly migrations?: readonly Migration[];
  /**
   * Columns of the plugin's tables holding SecretBox ciphertexts, so a master-key rotation can
   * re-seal them (`gateway master-key reseal`). Each row is keyed by its `id` column.
   */
  readonly sealedColumns?: readonly SealedColumn[];
  /**
   * Container wiring: returns resolvers keyed by service name. Every name must start with the
   * camelCase plugin id (`tenancyProjects` for plugin `tenancy`). Make them with `service` (a
   * singleton built from the services it declares, with its disposer) or `serviceValue`.
   */
  readonly register?: (context: RegisterContext<Static<TConfigSchema>>) => Record<string, Resolver<unknown>>;
  /**
   * The services other plugins may declare (ADR 0009), listed in the plugin's contract; the rest
   * are its own (a store behind a lifecycle, a metric, its config). Start-up refuses another
   * plugin's declaration of a service not listed here. Default: none.
   */
  readonly exports?: readonly ServiceName[];
  /** HTTP routes. Mounted by the kernel with validation, authentication and guards. */
  readonly routes?: PluginPart<readonly RouteDefinition[]>;
  /**
   * Error shapes of path prefixes this plugin owns (e.g. RFC 6749's for `/oauth`): every error
   * there, including the kernel's own (404, 405, 413, 415, body validation, 503), is rendered by it.
   * Built from declared services, so a prefix may follow configuration (the MCP transport's path).
   */
  readonly errorFormats?: PluginPart<readonly ErrorFormat[]>;
  /** Authenticators this plugin provides, by name (routes select one with `auth`). */
  readonly authenticators?: PluginPart<Record<string, Authenticator>>;
  /** pg-boss queues, workers and schedules owned by this plugin (`<id>.<job>` names). */
  readonly jobs?: PluginPart<readonly JobDefinition[]>;
  /** MCP tools this plugin offers agents (see McpToolDefinition); served by the MCP plugin. */
  readonly mcpTools?: PluginPart<readonly McpToolDefinition[]>;
  /**
   * What this plugin holds for a user that must end when the user is disabled or an administrator
   * ends their sessions (dashboard sessions, OAuth grants): run by the kernel's `userAccess`.
   */
  readonly userAccessEnders?: PluginPart<readonly UserAccessEnder[]>;
  /**
   * What this plugin adds to other plugins' extension points (ADR 0011): dashboard pages, checkout
   * panels. Each is built from the services it declares, checked at start-up like the parts above;
   * the owner of the point reads them from the kernel's `extensions` service.
   */
  readonly contributes?: readonly Contribution<any>[];
  /**
   * Operator CLI commands (`pnpm gateway <noun> <verb>`), each declaring the services its `run`
   * reads (`defineCommand`), checked at start-up like the parts above.
   */
  readonly cli?: readonly CliCommand[];
  /**
   * What this plugin's concepts need before real payments work (issue 23): run by `gateway
   * doctor`, logged at start-up and listed in the details of `/readyz`.
   */
  readonly readiness?: PluginPart<readonly ReadinessCheck[]>;
  /** Runs after migrations and queue creation, before traffic. Failing here stops start-up. */
  readonly start?: PluginPart<Promise<void>>;
  /** Runs on shutdown, in reverse dependency order. */
  readonly stop?: PluginPart<Promise<void>>;
}

/** A column of SecretBox ciphertexts (null allowed), with the `aad` each row was sealed with. */
export interface SealedColumn {
  readonly table: string;
  readonly column: string;
  /** The associated data of the row with this `id` (what `seal` was given). */
  readonly aad: (id: string) => string;
}

const PLUGIN_ID = /^[a-z][a-z0-9-]*$/;

/** Declares a plugin. Checks the shape eagerly so a mistake fails at import time. */
export function definePlugin<TConfigSchema extends TSchema>(plugin: PluginDefinition<TConfigSchema>): PluginDefinition<TConfigSchema> {
  if (!PLUGIN_ID.test(plugin.id)) throw new Error(`definePlugin: invalid plugin id "${plugin.id}"`);
  const names = new Set<string>();
  for (const migration of plugin.migrations ?? []) {
    if (names.has(migration.name)) throw new Error(`definePlugin(${plugin.id}): duplicate migration ${migration.name}`);
    names.add(migration.name);
  }
  return plugin;
}

/** The camelCase service-name prefix a plugin must use (`rate-limits` → `rateLimits`). */
export function servicePrefix(pluginId: string): string {
  return pluginId.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Any plugin, regardless of its config schema. */
export type AnyPlugin = PluginDefinition<any>;
