import { html, type SafeHtml } from '@gw/kernel';
import type { ProjectView } from '@gw/plugin-tenancy/contract';

/** A new project's id (the `X-Project-Id` header) and kind, shown above its secrets. */
export function credentialFacts(project: Pick<ProjectView, 'id' | 'kind'>): SafeHtml {
  return html`<dl class="facts"><dt>Project id (X-Project-Id)</dt><dd><code id="project-id">${project.id}</code></dd><dt>Kind</dt><dd>${project.kind}</dd></dl>`;
}

/** Longest project name (as the CLI). */
export const PROJECT_NAME_MAX = 128;
