import type { AnyPlugin } from '../plugin.js';

/**
 * Settings that keep a test's kernel off the internet, per plugin id: plugins that reach public
 * services by default are told not to. Only the watchers do (issue 40: with no watcher
 * configuration the mainnet and the test network in use of every enabled chain are watched through
 * the chains' public providers). A test of those defaults sets the key itself, which wins.
 */
export const OFFLINE_PLUGIN_CONFIG: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  watchers: { publicProviders: false },
};

/**
 * `config` (dotted overrides, as `loadConfig` takes them) with {@link OFFLINE_PLUGIN_CONFIG} for
 * the plugins of `plugins` added wherever `config` does not set the key itself, dotted
 * (`plugins.watchers.publicProviders`) or inside an object it gives (`plugins.watchers`, which is
 * then copied with the key added). A plugin absent from the composition gets nothing: the loader
 * refuses keys of plugins the build does not have.
 */
export function withOfflineConfig(plugins: readonly Pick<AnyPlugin, 'id'>[], config: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const added: Record<string, unknown> = {};
  const result: Record<string, unknown> = { ...config };
  for (const plugin of plugins) {
    for (const [key, value] of Object.entries(OFFLINE_PLUGIN_CONFIG[plugin.id] ?? {})) {
      const path = ['plugins', plugin.id, key];
      const prefix = [3, 2, 1].map((n) => path.slice(0, n)).find((p) => p.join('.') in config);
      if (prefix === undefined) {
        added[path.join('.')] = value;
        continue;
      }
      const entry = config[prefix.join('.')];
      const rest = path.slice(prefix.length);
      if (rest.length === 0 || !isObject(entry) || has(entry, rest)) continue;
      result[prefix.join('.')] = withPath(entry, rest, value);
    }
  }
  // Added first, so that an object `config` gives for a whole slice is not overwritten by them.
  return { ...added, ...result };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function has(object: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = object;
  for (const part of path) {
    if (!isObject(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

/** A copy of `object` with `path` set to `value` (the objects on the way copied, never changed). */
function withPath(object: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path;
  const inner = object[head!];
  return { ...object, [head!]: rest.length === 0 ? value : withPath(isObject(inner) ? inner : {}, rest, value) };
}
