import { contribute, extensionPoint, withDeps, type Contribution, type DepName, type Deps, type SafeHtml } from '@gw/kernel';
import type { DashboardRequest } from './dashboard-page.js';

/** A section of a project's overview page (a heading and its figures), from the plugin that owns them. */
export interface OverviewSection<S = unknown> {
  readonly id: string;
  /** Position on the page (lower first). */
  readonly order: number;
  /** The section's markup; read from an indexed aggregate, the page renders every section at once. */
  readonly render: (req: DashboardRequest<S>) => Promise<SafeHtml>;
}

/** A section with the services it declared, as the overview renders it. */
export interface ContributedSection {
  readonly section: OverviewSection<any>;
  readonly services: unknown;
}

/** The sections of the project overview (`/dashboard/projects/:projectId/overview`), ADR 0011. */
export const OVERVIEW_SECTIONS = extensionPoint<ContributedSection>('dashboard.overview');

/** A plugin's overview sections, for its `contributes`; each reads exactly the services in `deps`. */
export function overviewSections<const K extends DepName>(deps: readonly K[], sections: readonly OverviewSection<Deps<K>>[]): Contribution<ContributedSection> {
  return contribute(
    OVERVIEW_SECTIONS,
    withDeps(deps, (services) => sections.map((section): ContributedSection => ({ section, services }))),
  );
}
