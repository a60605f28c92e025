import { coreErrors, html } from '@gw/kernel';
import type {} from '../contract.js';
import { actionButton, type DashboardRequest, definePage, page, type PageServices, redirect, table } from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(SANDBOX_PAGE_DEPS, [...])`. */
export const SANDBOX_PAGE_DEPS = ['sandboxProjects'] as const;
type Services = PageServices<typeof SANDBOX_PAGE_DEPS>;

/** The project of the request, refused unless it is a sandbox project. */
function sandboxOnly(req: DashboardRequest<Services>) {
  if (req.project!.kind !== 'sandbox')
    throw coreErrors.sandbox_project_required({
      message: `${req.project!.name} is a ${req.project!.kind} project; these actions are for sandbox projects only.`,
    });
  return req.project!;
}

/** A sandbox project's generated keys, reset (purge invoices, events and pool) and delete. */
export const sandboxPage = definePage<Services>({
  nav: { label: 'Sandbox', scope: 'project', path: '/sandbox', order: 90, kinds: ['sandbox'] },
  summary: "A sandbox project's generated account keys; reset and delete.",
  cli: ['sandbox wallets'],
  render: async (req) => {
    const p = sandboxOnly(req);
    const wallets = await req.services.sandboxProjects.wallets(p.id);
    return page(
      'Sandbox',
      html`<h1>Sandbox project ${p.name}</h1>
${table(
  'Generated testnet keys',
  ['Chain', 'Account key', 'Bound'],
  wallets.map((w) => [w.chain, html`<code>${w.xpub}</code>`, w.bound_at_iso]),
  'No keys.',
)}
${
  req.user.role === 'admin'
    ? html`<h2>Reset</h2><p>Deletes the project's invoices, transactions, webhook events and address pool; the project, its API key, keys and token stay.</p>
${actionButton(req, `/dashboard/projects/${p.id}/sandbox/reset`, 'Reset sandbox', { confirm: `Delete every invoice and event of ${p.name}?`, danger: true })}
<h2>Delete</h2><p>Deletes the project and everything of it, API key and token included. This cannot be undone.</p>
${actionButton(req, `/dashboard/projects/${p.id}/sandbox/delete`, 'Delete sandbox project', { confirm: `Delete ${p.name} for good?`, danger: true })}`
    : null
}`,
    );
  },
  actions: {
    '/reset': {
      summary: "Purge a sandbox project's invoices, transactions, webhook events and pool.",
      cli: ['sandbox reset'],
      handle: async (req) => {
        const p = sandboxOnly(req);
        await req.services.sandboxProjects.reset(p.id, req.actor);
        return redirect(`/dashboard/projects/${p.id}/sandbox`, 'The sandbox project is reset: no invoices or events remain.');
      },
    },
    '/delete': {
      summary: 'Delete a sandbox project and everything of it.',
      cli: ['sandbox delete'],
      handle: async (req) => {
        const p = sandboxOnly(req);
        await req.services.sandboxProjects.delete(p.id, req.actor);
        return redirect('/dashboard/projects', `The sandbox project ${p.name} is deleted.`);
      },
    },
  },
});
