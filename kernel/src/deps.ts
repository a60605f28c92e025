import { asFunction, asValue, type Resolver } from 'awilix';
import type { Cradle } from './container.js';

/** The name of a service in the container (the kernel's or any plugin's, see `Cradle`). */
export type ServiceName = keyof Cradle;

/**
 * A declared dependency: a service name, or `name?` for a service of a plugin that may be
 * disabled and that the declaring plugin does not depend on (it reads `undefined` then).
 */
export type DepName = ServiceName | `${ServiceName & string}?`;

type RequiredNames<N extends DepName> = Extract<N, ServiceName>;
type OptionalNames<N extends DepName> = N extends `${infer K extends ServiceName & string}?` ? K : never;

/** The view of the container a part declared: exactly the named services, nothing else. */
export type Deps<N extends DepName> = Pick<Cradle, RequiredNames<N>> & Partial<Pick<Cradle, OptionalNames<N>>>;

const DECLARED = Symbol('gw.declared');

/**
 * A part of a plugin (its routes, jobs, start hook, …) together with the services it needs.
 * Made by `withDeps`; the kernel builds it with a view of the container that holds only `deps`.
 */
export interface Declared<T, K extends DepName = DepName> {
  readonly [DECLARED]: true;
  /** The services `create` may read, by container name. */
  readonly deps: readonly K[];
  /** Builds the part from its declared services. */
  readonly create: (deps: Deps<K>) => T;
}

/**
 * Declares what a plugin part needs from the container (ADR 0009), like Backstage's `deps`:
 *
 * ```ts
 * routes: withDeps(['tenancyProjects', 'chains'], ({ tenancyProjects, chains }) => [defineRoute(…)]),
 * ```
 *
 * The names are checked against `Cradle` at compile time and `create`'s parameter is typed as just
 * those services. At start-up the kernel refuses a declared name no enabled plugin provides, or
 * one of a plugin this plugin does not depend on; at run time, reading an undeclared name throws.
 */
export function withDeps<const K extends DepName, T>(deps: readonly K[], create: (deps: Deps<K>) => T): Declared<T, K> {
  return { [DECLARED]: true, deps: [...deps], create };
}

/** Whether `value` was made by `withDeps`. */
export function isDeclared(value: unknown): value is Declared<unknown> {
  return typeof value === 'object' && value !== null && (value as Partial<Declared<unknown>>)[DECLARED] === true;
}

/**
 * The view of `cradle` holding only `deps`, for `owner` (named in the error). A service is
 * resolved on its first read, so declaring one never resolves it early, and kept: every
 * registration is a singleton or a value (plugins register through `service`/`serviceValue`), so
 * a later read is a map lookup instead of a resolution by the container (hot paths read
 * `this.deps.x` thousands of times per batch).
 */
export function restrictCradle<K extends DepName>(cradle: Cradle, deps: readonly K[], owner: () => string): Deps<K> {
  const names = deps.map(parseDep);
  const allowed = new Set<string | symbol>(names.map(({ name }) => name));
  const optional = new Set<string | symbol>(names.filter((dep) => dep.optional).map(({ name }) => name));
  // Whether the container has `name`, without resolving it (the cradle answers this for Object.keys).
  const registered = (name: string | symbol) => Object.getOwnPropertyDescriptor(cradle, name) !== undefined;
  const resolved = new Map<string | symbol, unknown>();
  const read = (name: string | symbol) => {
    if (resolved.has(name)) return resolved.get(name);
    const value = optional.has(name) && !registered(name) ? undefined : cradle[name as ServiceName];
    resolved.set(name, value);
    return value;
  };
  const refuse = (name: string | symbol): never => {
    throw new Error(`${owner()} read "${String(name)}" from the container without declaring it (declared: ${deps.join(', ') || 'nothing'})`);
  };
  return new Proxy({} as Deps<K>, {
    get(_target, name) {
      if (allowed.has(name)) return read(name);
      // Probes that are not service reads: `await`/Promise.resolve, inspection, string conversion.
      if (typeof name === 'symbol' || name === 'then') return undefined;
      return refuse(name);
    },
    has: (_target, name) => allowed.has(name),
    ownKeys: () => [...allowed],
    getOwnPropertyDescriptor: (_target, name) => (allowed.has(name) ? { enumerable: true, configurable: true, writable: false, value: read(name) } : undefined),
    set: (_target, name) => refuse(name),
  });
}

/** A declared dependency's service name and whether it is optional (`name?`). */
export function parseDep(dep: DepName): { readonly name: ServiceName; readonly optional: boolean } {
  return dep.endsWith('?') ? { name: dep.slice(0, -1) as ServiceName, optional: true } : { name: dep as ServiceName, optional: false };
}

/**
 * Builds a declared part with the view of `cradle` it declared; `owner` names it in errors
 * (`routes of plugin "x"`). A part that is not declared is refused.
 */
export function buildDeclared<T>(part: Declared<T>, cradle: Cradle, owner: string): T {
  if (!isDeclared(part)) throw new Error(`${owner} must be declared with withDeps (ADR 0009)`);
  return part.create(restrictCradle(cradle, part.deps, () => owner));
}

interface ServiceDeclaration {
  readonly deps: readonly DepName[];
  /** Set by the kernel when it registers the resolver: `service "x" of plugin "y"`. */
  owner: string;
}

const declaredResolvers = new WeakMap<object, ServiceDeclaration>();

/**
 * A singleton service built from the services it declares (ADR 0009):
 *
 * ```ts
 * register: () => ({ tenancyProjects: service(['db', 'audit'], (deps) => new ProjectService(deps)) }),
 * ```
 *
 * `create` receives only `deps` (reading another name throws, naming the service); `dispose` runs
 * when the container is disposed (after HTTP and workers stopped).
 */
export function service<const K extends DepName, T>(
  deps: readonly K[],
  create: (deps: Deps<K>) => T,
  options: { readonly dispose?: (instance: T) => unknown } = {},
): Resolver<T> {
  const declaration: ServiceDeclaration = { deps: [...deps], owner: 'a service' };
  let resolver = asFunction((cradle: Cradle) => create(restrictCradle(cradle, deps, () => declaration.owner))).singleton();
  if (options.dispose) resolver = resolver.disposer(options.dispose as (instance: T) => Promise<void> | void);
  declaredResolvers.set(resolver, declaration);
  return resolver;
}

/** A ready value in the container (a config slice, a stateless helper); it reads no service. */
export function serviceValue<T>(value: T): Resolver<T> {
  const resolver = asValue(value);
  declaredResolvers.set(resolver, { deps: [], owner: 'a value' });
  return resolver;
}

/** The declaration of a resolver made by `service` or `serviceValue`; undefined for any other. */
export function serviceDeclaration(resolver: Resolver<unknown>): ServiceDeclaration | undefined {
  return declaredResolvers.get(resolver);
}
