import type { AwilixContainer } from 'awilix';
import type { Cradle } from './container.js';
import { isDeclared, parseDep, serviceDeclaration, type DepName } from './deps.js';
import type { LoadedPlugin } from './loader.js';
import { servicePrefix, type AnyPlugin } from './plugin.js';

/** The parts of a plugin built from the container, in the order the kernel builds them. */
export const PLUGIN_PARTS = ['routes', 'errorFormats', 'authenticators', 'jobs', 'mcpTools', 'userAccessEnders', 'readiness', 'start', 'stop'] as const;

/**
 * Checks every declaration of the enabled plugins once the container is wired (ADR 0009): each
 * declared service exists, and belongs to the kernel, to the declaring plugin, or to a plugin it
 * lists in `dependsOn` that exports it (another plugin's contract is what it exports, and only for
 * its dependants); an optional one (`name?`) may be missing and may belong to any plugin, but if
 * present it must be exported too. Covers the parts, the services and the CLI commands.
 * Also names each declared service resolver, so a refused read says which service made it.
 */
export function checkDeclaredDeps(loaded: readonly LoadedPlugin[], container: AwilixContainer<Cradle>, kernelServices: ReadonlySet<string>): void {
  const plugins = loaded.map(({ plugin }) => plugin);
  const ownerOf = (name: string): AnyPlugin | 'kernel' | undefined => {
    if (kernelServices.has(name)) return 'kernel';
    let owner: AnyPlugin | undefined;
    for (const plugin of plugins) {
      const prefix = servicePrefix(plugin.id);
      if (name.startsWith(prefix) && (!owner || prefix.length > servicePrefix(owner.id).length)) owner = plugin;
    }
    return owner;
  };
  for (const plugin of plugins) {
    for (const name of plugin.exports ?? []) {
      const owner = ownerOf(name);
      if (owner === 'kernel' || owner?.id !== plugin.id || !container.hasRegistration(name)) {
        throw new Error(`plugin "${plugin.id}" exports "${String(name)}", which it does not register`);
      }
    }
  }
  for (const plugin of plugins) {
    const dependencies = new Set(plugin.dependsOn ?? []);
    const check = (part: string, deps: readonly DepName[]) => {
      for (const { name, optional } of deps.map(parseDep)) {
        if (!container.hasRegistration(name)) {
          // An optional service is one of a plugin that may be disabled.
          if (optional) continue;
          throw new Error(`${part} of plugin "${plugin.id}" declares "${String(name)}", which no enabled plugin provides`);
        }
        const owner = ownerOf(name);
        if (owner === 'kernel' || owner?.id === plugin.id) continue;
        if (!owner) throw new Error(`${part} of plugin "${plugin.id}" declares "${String(name)}", which no enabled plugin provides`);
        if (!optional && !dependencies.has(owner.id)) {
          throw new Error(`${part} of plugin "${plugin.id}" declares "${String(name)}" of plugin "${owner.id}", which is not in its dependsOn`);
        }
        if (!(owner.exports ?? []).includes(name)) {
          throw new Error(
            `${part} of plugin "${plugin.id}" declares "${String(name)}", which plugin "${owner.id}" does not export (its exports: ${owner.exports?.join(', ') || 'none'})`,
          );
        }
      }
    };
    for (const part of PLUGIN_PARTS) {
      const member: unknown = plugin[part];
      if (isDeclared(member)) check(part, member.deps);
    }
    for (const contribution of plugin.contributes ?? []) {
      check(`contribution to ${contribution.point.id}`, isDeclared(contribution.part) ? contribution.part.deps : []);
    }
    for (const command of plugin.cli ?? []) {
      const part = `cli command "${[command.noun, command.verb].filter(Boolean).join(' ')}"`;
      if (!Array.isArray(command.deps)) throw new Error(`${part} of plugin "${plugin.id}" must declare its deps with defineCommand (ADR 0009)`);
      check(part, command.deps);
    }
    for (const [name, resolver] of Object.entries(container.registrations)) {
      if (kernelServices.has(name) || ownerOf(name) !== plugin) continue;
      const declaration = serviceDeclaration(resolver);
      if (!declaration) continue;
      declaration.owner = `service "${name}" of plugin "${plugin.id}"`;
      check(`service "${name}"`, declaration.deps);
    }
  }
}
