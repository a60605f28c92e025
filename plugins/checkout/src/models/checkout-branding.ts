import { Model } from 'objection';

/** A project's checkout branding; no row means the defaults (the project's name, no logo, the page's colour). */
export class CheckoutBranding extends Model {
  static override tableName = 'checkout_branding';
  static override idColumn = 'project_id';
  project_id!: string;
  display_name!: string | null;
  /** The logo as a `data:` URI (PNG, JPEG, WebP or SVG). */
  logo_data_uri!: string | null;
  /** `#rrggbb`, lower case. */
  colour!: string | null;
  updated_at!: Date;
}
