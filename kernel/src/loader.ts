import { ConfigError } from './config/config-error.js';
import type { KernelConfig } from './config/kernel-config.js';
import { validateConfig } from './config/validate-config.js';
import type { AnyPlugin } from './plugin.js';
import Type from 'typebox';

/** A plugin the loader accepted, with its validated config slice. */
export interface LoadedPlugin {
  readonly plugin: AnyPlugin;
  readonly config: Record<string, unknown>;
}

/**
 * Resolves which plugins run and in what order.
 * - duplicate ids and unknown `plugins.<id>` config entries are refused;
 * - `plugins.<id>.enabled` (config file or environment) switches a plugin off;
 * - a plugin depending on a missing or disabled plugin stops start-up;
 * - the result is in dependency order (stable: composition order among independent plugins);
 * - each enabled plugin's slice is validated against its TypeBox schema (error names the key).
 */
export function loadPlugins(plugins: readonly AnyPlugin[], config: KernelConfig): LoadedPlugin[] {
  const byId = new Map<string, AnyPlugin>();
  for (const plugin of plugins) {
    if (byId.has(plugin.id)) throw new Error(`plugin id "${plugin.id}" is used twice`);
    byId.set(plugin.id, plugin);
  }
  for (const id of Object.keys(config.plugins)) {
    if (!byId.has(id)) throw new ConfigError(`unknown key plugins.${id}: no plugin with that id is part of this build`);
  }
  const enabled = plugins.filter((plugin) => {
    const value = config.plugins[plugin.id]?.['enabled'];
    if (value === undefined) return plugin.enabledByDefault !== false;
    if (typeof value !== 'boolean') throw new ConfigError(`invalid value for plugins.${plugin.id}.enabled: must be boolean`);
    return value;
  });
  const enabledIds = new Set(enabled.map((p) => p.id));
  for (const plugin of enabled) {
    for (const dependency of plugin.dependsOn ?? []) {
      if (!byId.has(dependency)) throw new Error(`plugin "${plugin.id}" depends on "${dependency}", which is not part of this build`);
      if (!enabledIds.has(dependency))
        throw new ConfigError(`plugin "${plugin.id}" depends on "${dependency}", which is disabled (plugins.${dependency}.enabled)`);
    }
  }
  const ordered: AnyPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: AnyPlugin, trail: string[]) => {
    const mark = state.get(plugin.id);
    if (mark === 'done') return;
    if (mark === 'visiting') throw new Error(`plugin dependency cycle: ${[...trail, plugin.id].join(' -> ')}`);
    state.set(plugin.id, 'visiting');
    for (const dependency of plugin.dependsOn ?? []) visit(byId.get(dependency)!, [...trail, plugin.id]);
    state.set(plugin.id, 'done');
    ordered.push(plugin);
  };
  for (const plugin of enabled) visit(plugin, []);
  return ordered.map((plugin) => {
    const { enabled: _enabled, ...slice } = config.plugins[plugin.id] ?? {};
    const schema = plugin.config ?? Type.Object({}, { additionalProperties: false });
    return { plugin, config: validateConfig<Record<string, unknown>>(schema, slice, `plugins.${plugin.id}`) };
  });
}
