/**
 * The contract of the sandbox plugin (sandbox projects and simulations): the services it registers and
 * what other plugins may import from it (`@gw/plugin-sandbox/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { SandboxConfig } from './config.js';
import type { SandboxChain } from './services/sandbox-chain.js';
import type { SandboxInvoices } from './services/sandbox-invoices.js';
import type { SandboxProjects } from './services/sandbox-projects.js';
import type { Simulator } from './services/simulator.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly sandboxConfig: SandboxConfig;
    readonly sandboxProjects: SandboxProjects;
    readonly sandboxInvoices: SandboxInvoices;
    readonly sandboxSimulator: Simulator;
    readonly sandboxChain: SandboxChain;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const SANDBOX_EXPORTS: readonly ServiceName[] = [];

export type { SimulationInput } from './services/simulator.js';
export { SANDBOX_PROJECT_PURGERS, type ProjectPurger } from './project-purgers.js';

export { SIMULATION_RULES, SIMULATIONS, simulationApplies, TERMINAL_EVENT_TYPES, type Simulation } from './simulations.js';
