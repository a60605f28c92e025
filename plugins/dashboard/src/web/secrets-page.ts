import { html, type SafeHtml } from '@gw/kernel';
import { secretOnce } from './components.js';
import { page, type PageResponse } from './dashboard-page.js';

/** A secret a `secretsPage` shows once: its field's id (unique on the page), label and value. */
export interface ShownSecret {
  readonly id: string;
  readonly label: string;
  readonly secret: string;
}

/**
 * The answer (201) to a form that made secrets: the heading, what was made (`intro`), each secret
 * shown once, and `next`, where to go on. The page is all the user ever sees of the secrets.
 */
export function secretsPage(title: string, heading: string, intro: SafeHtml, secrets: readonly ShownSecret[], next: SafeHtml): PageResponse {
  const shown = secrets.map((s, i) => html`${i > 0 ? '\n' : ''}${secretOnce(s.id, s.label, s.secret)}`);
  return page(
    title,
    html`<h1>${heading}</h1>
${intro}
${shown}
${next}`,
    201,
  );
}
