import type { Cradle } from '../container.js';
import { buildDeclared } from '../deps.js';
import type { LoadedPlugin } from '../loader.js';
import type { Contributed, ExtensionPoint, Extensions } from './extension-point.js';

/**
 * The `extensions` service: builds each enabled plugin's contributions to a point the first time
 * its owner asks (the owner's routes are built after every plugin registered), once.
 */
export function createExtensions(cradle: Cradle, loaded: readonly LoadedPlugin[]): Extensions {
  const built = new Map<string, readonly Contributed<unknown>[]>();
  return {
    of<T>(point: ExtensionPoint<T>): readonly Contributed<T>[] {
      let items = built.get(point.id);
      if (!items) {
        items = loaded.flatMap(({ plugin }) =>
          (plugin.contributes ?? [])
            .filter((c) => c.point.id === point.id)
            .flatMap((c) =>
              buildDeclared(c.part, cradle, `contribution to ${point.id} of plugin "${plugin.id}"`).map((item) => ({ pluginId: plugin.id, item })),
            ),
        );
        built.set(point.id, items);
      }
      return items as readonly Contributed<T>[];
    },
  };
}
