import { coreErrors, html, type SafeHtml } from '@gw/kernel';
import { nextPageLink, pageOf, table } from './components.js';
import type { DashboardRequest } from './dashboard-page.js';

/** One field of a GET filter form. */
export interface FilterField {
  readonly name: string;
  readonly label: string;
  /** A select of these values (with "any" first) instead of a text box. */
  readonly choices?: readonly string[];
  /** What a choice shows (default: the value itself). */
  readonly labels?: ReadonlyMap<string, string>;
  /** `pattern` (a RegExp source) the value must match; else the list answers 400 naming the field. */
  readonly pattern?: string;
  readonly max?: number;
  readonly placeholder?: string;
}

/**
 * The filters of the request's query, checked against `fields`: a value that is too long, not one
 * of the choices or not matching the pattern is 400 `validation_error` naming the field (never a
 * database error). Empty values are absent.
 */
export function readFilters(req: Pick<DashboardRequest, 'query'>, fields: readonly FilterField[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = req.query.get(field.name)?.trim();
    if (value === undefined || value === '') continue;
    const invalid = () => coreErrors.validation_error({ message: `Filter "${field.label}" is not valid.`, details: { field: `query.${field.name}` } });
    if (value.length > (field.max ?? 200) || value.includes('\u0000')) throw invalid();
    if (field.choices && !field.choices.includes(value)) throw invalid();
    if (field.pattern && !new RegExp(field.pattern).test(value)) throw invalid();
    values[field.name] = value;
  }
  return values;
}

/** A GET form with the filters (values kept), a submit button and a reset link. */
export function filterForm(action: string, fields: readonly FilterField[], values: Readonly<Record<string, string>>, label = 'Filters'): SafeHtml {
  return html`<form class="filters" method="get" action="${action}" aria-label="${label}">
${fields.map((f) => {
  const id = `filter-${f.name}`;
  const value = values[f.name] ?? '';
  return f.choices
    ? html`<div class="field"><label for="${id}">${f.label}</label><select id="${id}" name="${f.name}"><option value="">any</option>${f.choices.map((c) => html`<option value="${c}"${c === value ? html` selected` : null}>${f.labels?.get(c) ?? c}</option>`)}</select></div>`
    : html`<div class="field"><label for="${id}">${f.label}</label><input id="${id}" name="${f.name}" type="text" value="${value}" maxlength="${f.max ?? 200}"${f.placeholder ? html` placeholder="${f.placeholder}"` : null}></div>`;
})}
<div class="field actions"><button type="submit">Search</button> <a href="${action}">Clear</a></div>
</form>`;
}

/** An ISO instant as a short UTC text in a `<time>` element (or a dash). */
export function when(iso: string | null | undefined): SafeHtml | string {
  if (!iso) return '—';
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

/** Seconds as "3 min", "2 h 5 min", "4 d 1 h". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** A JSON value shown as escaped, pretty-printed text. */
export function jsonBlock(value: unknown): SafeHtml {
  return html`<pre class="json" tabindex="0">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A record's partner metadata as a {@link jsonBlock}, or "No metadata." when it has none. */
export function metadataBlock(metadata: object | null | undefined): SafeHtml {
  return metadata && Object.keys(metadata).length > 0 ? jsonBlock(metadata) : html`<p class="empty">No metadata.</p>`;
}

/**
 * A filtered, cursor-paginated list page at `path` (a REST list in the browser): the request's
 * filters, checked against `fields` ({@link readFilters}), and its page as the list services take
 * it (`limit`, and `cursor` when the request names one); `render` puts the filter form above the
 * list (a table, or a form holding it) and the next-page link below it.
 */
export function filteredList(req: Pick<DashboardRequest, 'query'>, path: string, fields: readonly FilterField[]) {
  const filters = readFilters(req, fields);
  const { after, limit } = pageOf(req);
  const filtered = Object.keys(filters).length > 0;
  const render = (label: string, list: SafeHtml, items: readonly { id: string }[]): SafeHtml => html`${filterForm(path, fields, filters, label)}
${list}
${nextPageLink(req, path, items, limit)}`;
  return {
    filters,
    page: { limit, ...(after ? { cursor: after } : {}) },
    /** Whether any filter is given (an empty list then says that nothing matches). */
    filtered,
    render,
    /**
     * {@link render} of the usual list, a {@link table} of `items` (`list`: its caption, column
     * labels and the cells of an item). When empty it says `empty`, or with filters given
     * `empty.filtered` (nothing matches) and without them `empty.none`.
     */
    table: <T extends { id: string }>(
      label: string,
      list: { caption: string; head: readonly string[]; row: (item: T) => readonly (SafeHtml | string | number | null)[] },
      items: readonly T[],
      empty: string | { readonly filtered: string; readonly none: string },
    ): SafeHtml =>
      render(label, table(list.caption, list.head, items.map(list.row), typeof empty === 'string' ? empty : filtered ? empty.filtered : empty.none), items),
  };
}
