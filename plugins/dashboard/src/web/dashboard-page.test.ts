import test from 'ava';
import { html } from '@gw/kernel';
import { definePage, navHref, navRoutePath, page, redirect, type DashboardPage } from './dashboard-page.js';

const view = { summary: 'A view.', render: async () => page('A', html`<h1>A</h1>`) };
const action = { summary: 'An action.', handle: async () => redirect('/dashboard') };

test('a page of a header link: its main view at the link, views and actions below it, then its other routes; its id from the link', (t) => {
  const invoices = definePage<unknown>({
    nav: { label: 'Invoices', scope: 'project', path: '/invoices', order: 20 },
    cli: ['invoice list'],
    ...view,
    views: { '/export': view, '/:invoiceId': view },
    actions: { '/:invoiceId/cancel': action, '': action },
    routes: () => [{ method: 'GET', path: '/dashboard/elsewhere', ...view }],
  });
  t.is(invoices.id, 'invoices');
  t.deepEqual(invoices.nav, [{ label: 'Invoices', scope: 'project', path: '/invoices', order: 20 }]);
  t.deepEqual(
    invoices.routes(undefined).map((r) => `${r.method} ${r.path}`),
    [
      'GET /dashboard/projects/:projectId/invoices',
      'GET /dashboard/projects/:projectId/invoices/export',
      'GET /dashboard/projects/:projectId/invoices/:invoiceId',
      'POST /dashboard/projects/:projectId/invoices/:invoiceId/cancel',
      'POST /dashboard/projects/:projectId/invoices',
      'GET /dashboard/elsewhere',
    ],
  );
  t.deepEqual(invoices.routes(undefined)[0]!.cli, ['invoice list']);
});

test('an operator link leads to its own path; a page declared whole is kept as it is', (t) => {
  const users = definePage<unknown>({ nav: { label: 'Users', scope: 'operator', path: '/dashboard/users', order: 40 }, dependsOn: ['tenancy'], ...view });
  t.is(users.id, 'users');
  t.deepEqual(users.dependsOn, ['tenancy']);
  t.deepEqual(
    users.routes(undefined).map((r) => `${r.method} ${r.path}`),
    ['GET /dashboard/users'],
  );
  const whole: DashboardPage<unknown> = { id: 'whole', routes: () => [{ method: 'POST', path: '/dashboard/x', ...action }] };
  t.is(definePage(whole), whole);
});

test('a link addresses its project, or itself for the operator', (t) => {
  const project = { label: 'Policy', scope: 'project', path: '/policy', order: 50 } as const;
  const operator = { label: 'Audit', scope: 'operator', path: '/dashboard/audit', order: 80 } as const;
  t.is(navRoutePath(project), '/dashboard/projects/:projectId/policy');
  t.is(navHref(project, '01J0000000000000000000000A'), '/dashboard/projects/01J0000000000000000000000A/policy');
  t.is(navRoutePath(operator), '/dashboard/audit');
  t.is(navHref(operator, '01J0000000000000000000000A'), '/dashboard/audit');
});
