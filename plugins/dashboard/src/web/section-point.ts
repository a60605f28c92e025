import { contribute, extensionPoint, withDeps, type Contribution, type DepName, type Deps, type SafeHtml } from '@gw/kernel';
import type { DashboardRequest } from './dashboard-page.js';

/**
 * The frame pages that show sections other plugins contribute: `overview` (a project at a glance:
 * a heading and its figures per plugin) and `new-project` (the projects page's forms to create a
 * project, for administrators, before the form for a project of a fixed kind).
 */
export type SectionPage = 'overview' | 'new-project';

/** A section of a frame page, from the plugin that owns what it shows. */
export interface PageSection<S = unknown> {
  readonly page: SectionPage;
  readonly id: string;
  /** Position on the page (lower first). */
  readonly order: number;
  /** The section's markup; the page renders every section at once. */
  readonly render: (req: DashboardRequest<S>) => Promise<SafeHtml>;
}

/** A section with the services it declared, as the page renders it. */
export interface ContributedSection {
  readonly section: PageSection<any>;
  readonly services: unknown;
}

/** Sections of the frame's pages (ADR 0011). */
export const PAGE_SECTIONS = extensionPoint<ContributedSection>('dashboard.sections');

/** A plugin's sections, for its `contributes`; each reads exactly the services in `deps`. */
export function pageSections<const K extends DepName>(deps: readonly K[], sections: readonly PageSection<Deps<K>>[]): Contribution<ContributedSection> {
  return contribute(
    PAGE_SECTIONS,
    withDeps(deps, (services) => sections.map((section): ContributedSection => ({ section, services }))),
  );
}

/** Renders the sections contributed to `page`, in order, one per line. */
export async function renderSections(contributed: readonly ContributedSection[], page: SectionPage, req: DashboardRequest<unknown>): Promise<SafeHtml[]> {
  const sections = contributed.filter((c) => c.section.page === page).sort((a, b) => a.section.order - b.section.order);
  return Promise.all(sections.map(({ section, services }) => section.render({ ...req, services })));
}
