import type { AwilixContainer } from 'awilix';
import type { Cradle } from './container.js';
import { isDeclared, parseDep, serviceDeclaration, type DepName } from './deps.js';
import type { LoadedPlugin } from './loader.js';
import { servicePrefix, type AnyPlugin } from './plugin.js';

/** The parts of a plugin built from the container, in the order the kernel builds them. */
export const PLUGIN_PARTS = ['routes', 'errorFormats', 'authenticators', 'jobs', 'mcpTools', 'userAccessEnders', 'readiness', 'start', 'stop'] as const;

/**
 * Checks every declaration of the enabled plugins once the container is wired (ADR 0009): each
 * declared service exists, and belongs to the kernel, to the declaring plugin or to a plugin it
 * lists in `dependsOn` (another plugin's services are its contract only for its dependants);
 * an optional one (`name?`) may be missing and may belong to any plugin.
 * Also names each declared service resolver, so a refused read says which service made it.
 */
export function checkDeclaredDeps(loaded: readonly LoadedPlugin[], container: AwilixContainer<Cradle>, kernelServices: ReadonlySet<string>): void {
  const plugins = loaded.map(({ plugin }) => plugin);
  const ownerOf = (name: string): string | undefined => {
    if (kernelServices.has(name)) return 'kernel';
    let owner: AnyPlugin | undefined;
    for (const plugin of plugins) {
      const prefix = servicePrefix(plugin.id);
      if (name.startsWith(prefix) && (!owner || prefix.length > servicePrefix(owner.id).length)) owner = plugin;
    }
    return owner?.id;
  };
  for (const plugin of plugins) {
    const allowed = new Set(['kernel', plugin.id, ...(plugin.dependsOn ?? [])]);
    const check = (part: string, deps: readonly DepName[]) => {
      for (const { name, optional } of deps.map(parseDep)) {
        // An optional service is one of a plugin that may be disabled: neither rule applies.
        if (optional) continue;
        if (!container.hasRegistration(name)) throw new Error(`${part} of plugin "${plugin.id}" declares "${String(name)}", which no enabled plugin provides`);
        const owner = ownerOf(name)!;
        if (!allowed.has(owner)) {
          throw new Error(`${part} of plugin "${plugin.id}" declares "${String(name)}" of plugin "${owner}", which is not in its dependsOn`);
        }
      }
    };
    for (const part of PLUGIN_PARTS) {
      const member: unknown = plugin[part];
      if (isDeclared(member)) check(part, member.deps);
    }
    for (const [name, resolver] of Object.entries(container.registrations)) {
      if (kernelServices.has(name) || ownerOf(name) !== plugin.id) continue;
      const declaration = serviceDeclaration(resolver);
      if (!declaration) continue;
      declaration.owner = `service "${name}" of plugin "${plugin.id}"`;
      check(`service "${name}"`, declaration.deps);
    }
  }
}
