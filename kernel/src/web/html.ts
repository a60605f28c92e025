/**
 * HTML built from templates that escape every interpolated value. Pages people see (OAuth,
 * dashboard, checkout) are written with `html` so text from partners, payers and operators can
 * never become markup.
 *
 * ```ts
 * html`<p>${project.name}</p>`            // escaped
 * html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>` // nested templates and arrays
 * ```
 */

/** Markup that is safe to emit as it is: produced by `html`, or constant markup marked with `trustedHtml`. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What a template may interpolate. `null`, `undefined` and `false` render nothing; arrays render each element. */
export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  return escapeHtml(String(value));
}

/** Tagged template: the literal parts are markup, every interpolation is escaped (unless it is `SafeHtml`). */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/**
 * Marks constant markup (written in the source, never built from input) as safe. Anything that
 * holds input goes through `html` instead.
 */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
