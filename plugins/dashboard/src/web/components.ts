import { html, randomBase62, type SafeHtml } from '@gw/kernel';
import type { DashboardRequest } from './dashboard-page.js';

/** The hidden CSRF field every dashboard form carries (checked on every POST). */
export function csrfField(req: Pick<DashboardRequest, 'csrf'>): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${req.csrf}">`;
}

/** The field of a single-use form (`once` actions): a fresh nonce each time the form is rendered. */
export const ONCE_FIELD = '_once';
export const ONCE_NONCE = /^[0-9A-Za-z]{22}$/;
export function onceField(): SafeHtml {
  return html`<input type="hidden" name="${ONCE_FIELD}" value="${randomBase62(22)}">`;
}

/**
 * A form with one button that POSTs to `action` (no JavaScript needed). `confirm`: a question the
 * script asks first (without JavaScript the action runs directly, as a plain form does); `once`: the
 * form of a single-use action.
 */
export function actionButton(
  req: Pick<DashboardRequest, 'csrf'>,
  action: string,
  label: string,
  options: { confirm?: string; danger?: boolean; once?: boolean; hidden?: Readonly<Record<string, string>> } = {},
): SafeHtml {
  const fields = Object.entries(options.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form class="inline" method="post" action="${action}"${options.confirm ? html` data-confirm="${options.confirm}"` : null}>${csrfField(req)}${options.once ? onceField() : null}${fields}<button type="submit"${options.danger ? html` class="danger"` : null}>${label}</button></form>`;
}

/**
 * A secret shown once: a read-only field with a copy button and the warning that it will not be
 * shown again. `id` must be unique on the page.
 */
export function secretOnce(id: string, label: string, secret: string): SafeHtml {
  return html`<div class="secret">
<label for="${id}">${label}</label>
<div class="copyable"><input id="${id}" class="mono" readonly value="${secret}" aria-describedby="${id}-note"><button type="button" class="copy" data-copy="${id}">Copy</button></div>
<p id="${id}-note" class="warning"><strong>You will not see this again.</strong> Copy it now and store it safely.</p>
</div>`;
}

/** A table; `head` are the column labels, `rows` the cells (already markup or text). */
export function table(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly (SafeHtml | string | number | null)[])[],
  empty = 'Nothing here yet.',
): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table>
<caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/**
 * "Next page" link of a cursor-paginated list: shown when the page was full (`items.length ===
 * limit`), pointing at `path` with `after=<last id>` (other query parameters kept).
 */
export function nextPageLink(req: Pick<DashboardRequest, 'query'>, path: string, items: readonly { id: string }[], limit: number): SafeHtml | null {
  if (items.length < limit) return null;
  const query = new URLSearchParams(req.query);
  query.set('after', items[items.length - 1]!.id);
  return html`<nav class="pager" aria-label="Pages"><a href="${`${path}?${query.toString()}`}" rel="next">Next page</a></nav>`;
}

/** The page size of lists, and the cursor of the request (`after`: an id, else undefined). */
export function pageOf(req: Pick<DashboardRequest, 'query'>, limit = 50): { after?: string; limit: number } {
  const after = req.query.get('after');
  return after && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(after) ? { after, limit } : { limit };
}

/**
 * How a status reads at a glance: done well (`good`), still moving (`waiting`), gone wrong (`bad`),
 * or over without money (`ended`). Each tone has its own colours, border style and glyph (drawn by
 * the stylesheet, with empty alternative text), so it is not told by colour alone; the word itself
 * stays the text that is read out.
 */
export type BadgeTone = 'good' | 'waiting' | 'bad' | 'ended';

/** Tones of the status words other than invoice statuses (those come from the invoices plugin's lists, see invoices-page). */
const WORD_TONES: Readonly<Record<string, BadgeTone>> = {
  ok: 'good',
  active: 'good',
  delivered: 'good',
  confirmed: 'good',
  verified: 'good',
  pending: 'waiting',
  retrying: 'waiting',
  warning: 'waiting',
  dlq: 'bad',
  error: 'bad',
  revoked: 'bad',
  suspended: 'bad',
  expired: 'bad',
  reverted: 'bad',
  dropped: 'bad',
  skipped: 'ended',
};

/** A status word as a badge (text, so it is read out), in the tone given or known for the word. */
export function badge(text: string, tone: BadgeTone | undefined = WORD_TONES[text]): SafeHtml {
  return html`<span class="badge badge-${text.replace(/[^a-z_-]/g, '')}${tone ? ` tone-${tone}` : ''}">${text}</span>`;
}
