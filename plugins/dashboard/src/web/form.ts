import type { Context } from 'koa';
import { dashboardErrors } from '../errors.js';

/** The longest text field the dashboard accepts unless a field says otherwise. */
export const DEFAULT_FIELD_MAX = 1000;

/**
 * The fields of a submitted dashboard form (`application/x-www-form-urlencoded`). A repeated field,
 * a field over its length, a missing required field or U+0000 is 400 `invalid_form`, raised before
 * anything is written.
 */
export class FormFields {
  private constructor(private readonly fields: Map<string, string>) {}

  /** Parses the request's body; anything but a url-encoded form (or an empty body) is refused. */
  static of(ctx: Context): FormFields {
    const raw = ctx.request.rawBody ?? '';
    if (raw.length > 0 && ctx.request.is('application/x-www-form-urlencoded') === false) {
      throw dashboardErrors.invalid_form({ message: 'The form must be sent as application/x-www-form-urlencoded.' });
    }
    const fields = new Map<string, string>();
    for (const [name, value] of new URLSearchParams(raw)) {
      if (fields.has(name)) throw dashboardErrors.invalid_form({ message: `The field "${name.slice(0, 64)}" appears more than once.` });
      fields.set(name, value);
    }
    return new FormFields(fields);
  }

  /** Whether the form has the field (even empty). */
  has(name: string): boolean {
    return this.fields.has(name);
  }

  /** The raw value (no checks), for the CSRF token. */
  raw(name: string): string | undefined {
    return this.fields.get(name);
  }

  /** A required text field, trimmed: non-empty, at most `max` characters, no NUL. */
  text(name: string, label: string, options: { max?: number } = {}): string {
    const value = this.optional(name, label, options);
    if (value === undefined) throw dashboardErrors.invalid_form({ message: `${label} is required.` });
    return value;
  }

  /** An optional text field, trimmed; undefined when absent or empty. */
  optional(name: string, label: string, options: { max?: number } = {}): string | undefined {
    const max = options.max ?? DEFAULT_FIELD_MAX;
    const value = this.fields.get(name)?.trim();
    if (value === undefined || value === '') return undefined;
    if (value.length > max) throw dashboardErrors.invalid_form({ message: `${label} must be at most ${max} characters.` });
    if (value.includes('\u0000')) throw dashboardErrors.invalid_form({ message: `${label} must not contain the NUL character.` });
    return value;
  }

  /** A required field whose value is one of `choices`. */
  choice<T extends string>(name: string, label: string, choices: readonly T[]): T {
    const value = this.fields.get(name);
    if (value === undefined || !(choices as readonly string[]).includes(value))
      throw dashboardErrors.invalid_form({ message: `${label} must be one of ${choices.join(', ')}.` });
    return value as T;
  }

  /**
   * A set of checkboxes named `prefix` + member (one distinct field per member, so a repeated
   * field stays refused): every member submitted checked, in form order. A member over `max`
   * characters (default 64) or holding NUL is 400 `invalid_form`, as for a text field.
   */
  checkedMembers(prefix: string, label: string, options: { max?: number } = {}): string[] {
    const max = options.max ?? 64;
    const members: string[] = [];
    for (const name of this.fields.keys()) {
      if (!name.startsWith(prefix) || !this.checked(name)) continue;
      const member = name.slice(prefix.length);
      if (member.length > max) throw dashboardErrors.invalid_form({ message: `${label} must be at most ${max} characters.` });
      if (member.includes('\u0000')) throw dashboardErrors.invalid_form({ message: `${label} must not contain the NUL character.` });
      members.push(member);
    }
    return members;
  }

  /** A checkbox: whether it was submitted checked. */
  checked(name: string): boolean {
    return this.fields.get(name) === 'on' || this.fields.get(name) === 'true';
  }
}
