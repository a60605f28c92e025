import { createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type { Cradle } from './cradle.js';

export type { Cradle } from './cradle.js';

/**
 * The root container: strict mode (a singleton can never depend on a shorter-lived registration,
 * and resolving an unregistered name throws at once), PROXY injection so factories take the cradle.
 */
export function createRootContainer(): AwilixContainer<Cradle> {
  return createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
}
