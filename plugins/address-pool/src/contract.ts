/**
 * The contract of the address-pool plugin (the pool of derived deposit addresses and their allocation): the services it registers and
 * what other plugins may import from it (`@gw/plugin-address-pool/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { AddressPoolConfig } from './config.js';
import type { createAllocationCounter } from './metrics.js';
import type { AddressPoolService } from './services/address-pool-service.js';
import type { PoolReplenisher } from './services/pool-replenisher.js';
import type { PoolStatusService } from './services/pool-status.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly addressPoolConfig: AddressPoolConfig;
    readonly addressPoolService: AddressPoolService;
    readonly addressPoolReplenisher: PoolReplenisher;
    readonly addressPoolStatus: PoolStatusService;
    readonly addressPoolAllocations: ReturnType<typeof createAllocationCounter>;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const ADDRESS_POOL_EXPORTS: readonly ServiceName[] = ['addressPoolService', 'addressPoolReplenisher'];

export { addressPoolErrors } from './errors.js';
export type {
  ActivationDetection,
  AddressPoolService,
  Allocation,
  FreshPickGroup,
  FreshPicks,
  PickedGroup,
  PoolAddressPath,
  PoolAddressRef,
  TakenAddress,
  UnactivatedAddress,
} from './services/address-pool-service.js';
export type { PoolReplenisher } from './services/pool-replenisher.js';
export type { PoolStatus } from './services/pool-status.js';
