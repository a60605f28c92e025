import type { AnyPlugin, ChainModule } from '@gw/kernel';
import { tenancyPlugin } from '@gw/plugin-tenancy';

/**
 * The composition root: every plugin and chain of this build, imported explicitly. Config only
 * enables, disables and parameterises them. The gateway, worker, combined and CLI apps all use
 * this one list, so every process runs the same migrations and knows the same queues.
 */
export const plugins: readonly AnyPlugin[] = [tenancyPlugin];

export const chains: readonly ChainModule[] = [];
