import { html } from '@gw/kernel';
import type {} from '../contract.js';
import { actionButton, csrfField, type DashboardRequest, definePage, page, type PageServices, redirect } from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(BRANDING_PAGE_DEPS, [...])`. */
export const BRANDING_PAGE_DEPS = ['checkoutBranding'] as const;
type Services = PageServices<typeof BRANDING_PAGE_DEPS>;

const NAME_MAX = 80;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/branding`;

/**
 * How the project's checkout page looks to payers: display name and accent colour (set or back to
 * the default), the logo shown and removable. Uploading a logo stays with the CLI
 * (`branding set --logo`): forms here are url-encoded, without file uploads.
 */
export const brandingPage = definePage<Services>({
  nav: { label: 'Checkout branding', scope: 'project', path: '/branding', order: 80 },
  summary: "The project's checkout branding: display name, logo, accent colour.",
  cli: ['branding show'],
  render: async (req) => {
    const b = await req.services.checkoutBranding.forProject(req.project!.id);
    const admin = req.user.role === 'admin';
    return page(
      'Checkout branding',
      html`<h1>Checkout branding</h1>
<p>What payers see on the hosted checkout page of this project's invoices.</p>
<dl class="facts"><dt>Display name</dt><dd>${b.displayName}</dd><dt>Accent colour</dt><dd>${b.colour ?? 'default'}</dd><dt>Logo</dt><dd>${b.logoDataUri ? html`<img class="logo" src="${b.logoDataUri}" alt="Current logo">` : 'none'}</dd></dl>
${
  admin
    ? html`<form method="post" action="${base(req)}">${csrfField(req)}
<label for="display-name">Display name</label>
<input id="display-name" name="name" type="text" maxlength="${NAME_MAX}" value="${b.displayName}" aria-describedby="display-name-hint">
<p id="display-name-hint" class="note">Empty: the project's name.</p>
<label for="colour">Accent colour</label>
<input id="colour" name="colour" type="text" pattern="#[0-9a-fA-F]{6}" maxlength="7" value="${b.colour ?? ''}" aria-describedby="colour-hint">
<p id="colour-hint" class="note">#rrggbb; empty: the default.</p>
<button type="submit">Save branding</button>
</form>
${b.logoDataUri ? actionButton(req, `${base(req)}/remove-logo`, 'Remove logo', { confirm: 'Remove the logo from the checkout page?', danger: true }) : null}
<p class="note">Upload a logo with <code>pnpm gateway branding set --project ${req.project!.id} --logo ./logo.svg</code>.</p>`
    : null
}`,
    );
  },
  actions: {
    '': {
      summary: "Set the checkout page's display name and accent colour (empty: default).",
      cli: ['branding set'],
      handle: async (req) => {
        const name = req.form.optional('name', 'Display name', { max: NAME_MAX }) ?? null;
        const colour = req.form.optional('colour', 'Accent colour', { max: 7 }) ?? null;
        await req.services.checkoutBranding.set(req.project!.id, { displayName: name, colour }, req.actor);
        return redirect(base(req), 'The checkout branding is saved.');
      },
    },
    '/remove-logo': {
      summary: "Remove the checkout page's logo.",
      handle: async (req) => {
        await req.services.checkoutBranding.set(req.project!.id, { logo: null }, req.actor);
        return redirect(base(req), 'The logo is removed.');
      },
    },
  },
});
