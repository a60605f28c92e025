import type { Declared } from '../deps.js';
import type { ExtensionPoint } from './extension-point.js';

// Apart from extension-point.ts, which the cradle names (the `extensions` service): `Declared` comes
// from deps.ts, which names the cradle, so one file would close an import cycle
// (e2e/import-cycles.test.ts).

/** What a plugin adds to one extension point, built from the services it declares. */
export interface Contribution<T = unknown> {
  readonly point: ExtensionPoint<T>;
  readonly part: Declared<readonly T[]>;
}

/** A plugin's contribution to `point`: `part` is built once, from the services it declares. */
export function contribute<T>(point: ExtensionPoint<T>, part: Declared<readonly T[]>): Contribution<T> {
  return { point, part } as Contribution<T>;
}
