import { type Actor, type AuditLog, coreErrors, sql, sqlIdentifier, sqlJoin, sqlQuery } from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import { CheckoutBranding } from '../models/checkout-branding.js';

/** How a project's checkout page looks to payers. */
export interface Branding {
  /** Shown as "Payment to …"; the project's name unless the operator set one. */
  readonly displayName: string;
  /** A `data:` URI of a PNG, JPEG, WebP or SVG image, or null. */
  readonly logoDataUri: string | null;
  /** Accent colour `#rrggbb`, or null for the default. */
  readonly colour: string | null;
}

/** What the operator changes; `null` clears a setting, absent leaves it. */
export interface BrandingPatch {
  readonly displayName?: string | null;
  /** The image file's bytes. */
  readonly logo?: Buffer | null;
  readonly colour?: string | null;
}

export const MAX_LOGO_BYTES = 65_536;
export const MAX_DISPLAY_NAME = 80;
const COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The image type of a logo file by its first bytes; undefined when it is none the page shows. */
export function logoType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return startsWithSvgElement(bytes.subarray(0, 512).toString('utf8')) ? 'image/svg+xml' : undefined;
}

/** Whether the text begins (after an optional XML declaration and comments) with an `<svg` element; a scan, no backtracking pattern. */
function startsWithSvgElement(text: string): boolean {
  let rest = text.trimStart();
  if (rest.startsWith('<?xml')) {
    const end = rest.indexOf('>');
    if (end < 0) return false;
    rest = rest.slice(end + 1).trimStart();
  }
  while (rest.startsWith('<!--')) {
    const end = rest.indexOf('-->', 4);
    if (end < 0) return false;
    rest = rest.slice(end + 3).trimStart();
  }
  return rest.startsWith('<svg') && (rest.length === 4 || ' \t\r\n>'.includes(rest[4]!));
}

/**
 * Branding of the checkout page per project, set by the operator (CLI; the dashboard later). The
 * logo is kept as a data URI so the page needs no further request and no extra CSP source (an SVG
 * shown through `<img>` runs no script).
 */
export class BrandingService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyProjects: ProjectService }) {}

  /** The branding the page shows for the project. */
  async forProject(projectId: string): Promise<Branding> {
    const [project, row] = await Promise.all([this.deps.tenancyProjects.get(projectId), CheckoutBranding.query(this.deps.db).findById(projectId)]);
    return { displayName: row?.display_name ?? project.name, logoDataUri: row?.logo_data_uri ?? null, colour: row?.colour ?? null };
  }

  /** Changes the project's branding (404 `project_not_found` for an unknown project; 400 `validation_error` for a bad value). */
  async set(projectId: string, patch: BrandingPatch, actor: Actor): Promise<Branding> {
    await this.deps.tenancyProjects.get(projectId);
    const changes: { display_name?: string | null; colour?: string | null; logo_data_uri?: string | null } = {};
    if (patch.displayName !== undefined) {
      const name = patch.displayName?.trim() ?? null;
      if (name !== null && (name.length === 0 || name.length > MAX_DISPLAY_NAME)) {
        throw coreErrors.validation_error({ message: `The display name must be 1 to ${MAX_DISPLAY_NAME} characters.`, details: { field: 'name' } });
      }
      changes['display_name'] = name;
    }
    if (patch.colour !== undefined) {
      if (patch.colour !== null && !COLOUR.test(patch.colour))
        throw coreErrors.validation_error({ message: 'The colour must be #rrggbb.', details: { field: 'colour' } });
      changes['colour'] = patch.colour?.toLowerCase() ?? null;
    }
    if (patch.logo !== undefined) {
      if (patch.logo === null) changes['logo_data_uri'] = null;
      else {
        if (patch.logo.length > MAX_LOGO_BYTES)
          throw coreErrors.validation_error({ message: `The logo is larger than ${MAX_LOGO_BYTES} bytes.`, details: { field: 'logo' } });
        const type = logoType(patch.logo);
        if (!type) throw coreErrors.validation_error({ message: 'The logo must be a PNG, JPEG, WebP or SVG image.', details: { field: 'logo' } });
        changes['logo_data_uri'] = `data:${type};base64,${patch.logo.toString('base64')}`;
      }
    }
    await this.deps.db.transaction(async (trx) => {
      // One upsert: only the fields given change, the others keep their value (or stay null on a new row).
      const given = (['display_name', 'colour', 'logo_data_uri'] as const).filter((field) => field in changes);
      await sqlQuery(
        trx,
        sql`insert into checkout_branding (project_id, display_name, colour, logo_data_uri, updated_at)
            values (${projectId}, ${changes.display_name ?? null}, ${changes.colour ?? null}, ${changes.logo_data_uri ?? null}, now())
            on conflict (project_id) do update set ${sqlJoin([...given.map((field) => sql`${sqlIdentifier(field)} = excluded.${sqlIdentifier(field)}`), sql`updated_at = now()`])}`,
      );
      await this.deps.audit.record(
        { ...actor, action: 'checkout.branding.set', projectId, target: `project:${projectId}`, details: { fields: Object.keys(changes) } },
        trx,
      );
    });
    return this.forProject(projectId);
  }
}
