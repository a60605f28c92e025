import { contribute, extensionPoint, withDeps, type Contribution, type DepName, type Deps } from '@gw/kernel';
import type { DashboardPage } from './dashboard-page.js';

/** A page with the services it declared, as the frame mounts it. */
export interface ContributedPage {
  readonly page: DashboardPage<any>;
  readonly services: unknown;
}

/**
 * The dashboard's pages contributed by other plugins (ADR 0011): the frame (layout, sign-in,
 * sessions, CSRF, roles, project scoping) mounts them and builds the navigation from their `nav`;
 * it imports none of them.
 */
export const DASHBOARD_PAGES = extensionPoint<ContributedPage>('dashboard.pages');

/**
 * A plugin's dashboard pages, for its `contributes`: each page's routes read exactly the services
 * in `deps` (`req.services`), checked at start-up like every declared part.
 *
 * ```ts
 * const DEPS = ['invoicesService'] as const;
 * export const invoicesPage = definePage<PageServices<typeof DEPS>>({ ... });
 * contributes: [dashboardPages(DEPS, [invoicesPage])],
 * ```
 */
export function dashboardPages<const K extends DepName>(deps: readonly K[], pages: readonly DashboardPage<Deps<K>>[]): Contribution<ContributedPage> {
  return contribute(
    DASHBOARD_PAGES,
    withDeps(deps, (services) => pages.map((page): ContributedPage => ({ page, services }))),
  );
}

/** The services a page declaring `deps` reads. */
export type PageServices<D extends readonly DepName[]> = Deps<D[number]>;
