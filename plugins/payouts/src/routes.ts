import type { RouteDefinition } from '@gw/kernel';
import { withDeps } from '@gw/kernel';
export const payoutsRoutes = withDeps(['payoutsItems'], (): RouteDefinition[] => []);
