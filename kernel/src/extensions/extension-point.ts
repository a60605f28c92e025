/**
 * A place where one plugin lets others add to it (ADR 0011), as Backstage's extension points: the
 * dashboard's pages, the checkout page's panels. The plugin that owns the place declares the point
 * (in a module its contributors import, never its whole plugin), contributors list
 * `contribute(point, withDeps([...], deps => [...]))` under `contributes`, and the owner reads every
 * enabled plugin's contributions from the kernel's `extensions` service. The owner never imports
 * its contributors, so it depends on none of them; a contribution reads only what it declares.
 */
export interface ExtensionPoint<T> {
  /** Unique name, `<owner plugin id>.<what>` (`dashboard.pages`). */
  readonly id: string;
  /** Only carries `T` for the type checker. */
  readonly __contribution?: T;
}

/** Declares an extension point whose contributions are `T`s. */
export function extensionPoint<T>(id: string): ExtensionPoint<T> {
  if (!/^[a-z][a-z0-9-]*\.[a-z][a-zA-Z0-9-]*$/.test(id)) throw new Error(`extensionPoint: invalid id "${id}" (expected "<plugin id>.<name>")`);
  return { id };
}

/** One contributed item with the plugin that contributed it. */
export interface Contributed<T> {
  readonly pluginId: string;
  readonly item: T;
}

/** The kernel's view of every enabled plugin's contributions (service `extensions`). */
export interface Extensions {
  /** Every enabled plugin's contributions to `point`, in plugin (dependency) order. */
  of<T>(point: ExtensionPoint<T>): readonly Contributed<T>[];
}
