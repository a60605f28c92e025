import { readFile } from 'node:fs/promises';
import { CLI_ACTOR, type CliCommand, coreErrors, defineCommand, ulidFlag } from '@gw/kernel';
import { MAX_DISPLAY_NAME, MAX_LOGO_BYTES, type BrandingPatch } from './services/branding-service.js';

const view = (branding: { displayName: string; logoDataUri: string | null; colour: string | null }) => ({
  display_name: branding.displayName,
  logo: branding.logoDataUri
    ? `${branding.logoDataUri.slice(5, branding.logoDataUri.indexOf(';'))}, ${Math.floor((branding.logoDataUri.length - branding.logoDataUri.indexOf(',') - 1) * 0.75)} bytes`
    : null,
  colour: branding.colour,
});

/** Operator CLI: how a project's checkout page looks. */
export const checkoutCommands: CliCommand[] = [
  defineCommand(['checkoutBranding'], {
    noun: 'branding',
    verb: 'show',
    summary: "A project's checkout page branding: display name, logo, accent colour.",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => ({ branding: view(await deps.checkoutBranding.forProject(String(flags['project']))) }),
  }),
  defineCommand(['checkoutBranding'], {
    noun: 'branding',
    verb: 'set',
    summary: "Set a project's checkout page branding (only the flags given change).",
    flags: {
      project: ulidFlag('Project'),
      name: { type: 'string', description: `Display name shown to payers, 1 to ${MAX_DISPLAY_NAME} characters, or "default" for the project's name.` },
      logo: { type: 'string', description: `Path of a PNG, JPEG, WebP or SVG file of at most ${MAX_LOGO_BYTES} bytes, or "none".` },
      colour: {
        type: 'string',
        description: 'Accent colour #rrggbb (buttons), or "default".',
        validate: (v) => (v === 'default' || /^#[0-9a-fA-F]{6}$/.test(v) ? undefined : 'must be #rrggbb or "default"'),
      },
    },
    help: 'Example:\n  pnpm gateway branding set --project 01J... --name "Acme Shop" --logo ./logo.svg --colour "#0f766e"\nText is always escaped on the page; the logo is embedded in the page as a data URI.',
    run: async ({ flags, deps }) => {
      const patch: { -readonly [K in keyof BrandingPatch]: BrandingPatch[K] } = {};
      if (typeof flags['name'] === 'string') patch.displayName = flags['name'] === 'default' ? null : flags['name'];
      if (typeof flags['colour'] === 'string') patch.colour = flags['colour'] === 'default' ? null : flags['colour'];
      if (typeof flags['logo'] === 'string') {
        if (flags['logo'] === 'none') patch.logo = null;
        else {
          try {
            patch.logo = await readFile(flags['logo']);
          } catch (error) {
            throw coreErrors.validation_error({ message: `--logo: cannot read ${flags['logo']}: ${(error as Error).message}`, details: { field: 'logo' } });
          }
        }
      }
      if (Object.keys(patch).length === 0)
        throw coreErrors.validation_error({ message: 'Give at least one of --name, --logo, --colour.', details: { field: 'name' } });
      return { branding: view(await deps.checkoutBranding.set(String(flags['project']), patch, CLI_ACTOR)) };
    },
  }),
];
