import { html, isUlid } from '@gw/kernel';
import { SIGN_IN_PATH } from '../web/mount.js';
import { actionButton } from '../web/components.js';
import { definePage, page, redirect } from '../web/dashboard-page.js';

/**
 * The signed-in person's own account: who they are, sign-out, sign-out everywhere. Also the
 * project switcher's target and the dashboard's landing redirect.
 */
export function accountPage(home: string) {
  return definePage({
    id: 'account',
    nav: [{ label: 'Account', scope: 'operator', path: '/dashboard/account', order: 900 }],
    routes: ({ dashboardSessions: sessions, audit }) => [
      {
        method: 'GET',
        path: '/dashboard',
        summary: 'The landing page: redirects to the home page of the dashboard.',
        render: async () => redirect(home),
      },
      {
        method: 'GET',
        path: '/dashboard/switch',
        summary: "The project switcher's target: the chosen project's page.",
        render: async (req) => {
          const id = req.query.get('project') ?? '';
          return redirect(isUlid(id) ? `/dashboard/projects/${id}` : home);
        },
      },
      {
        method: 'GET',
        path: '/dashboard/account',
        summary: 'Your account: e-mail, role, sign-out everywhere.',
        render: async (req) =>
          page(
            'Account',
            html`<h1>Account</h1>
<dl class="facts"><dt>E-mail</dt><dd>${req.user.email}</dd><dt>Role</dt><dd>${req.user.role === 'admin' ? 'Administrator: every action' : 'Read-only member: you can look, not change'}</dd></dl>
<p><a href="/dashboard/users/${req.user.id}/apps">Your connected OAuth apps</a></p>
<h2>Sessions</h2>
<p>Signed-in sessions end after a period without use and a fixed time after sign-in. If you signed in on a device you no longer control, end every session.</p>
${actionButton(req, '/dashboard/sign-out-everywhere', 'Sign out everywhere', { confirm: 'End every session of your account, on every device?', danger: true })}`,
          ),
      },
      {
        method: 'POST',
        path: '/dashboard/sign-out',
        summary: 'Ends this session.',
        role: 'member',
        handle: async (req) => {
          await sessions.signOut(req.session);
          await audit.record({ ...req.actor, action: 'dashboard.sign_out', target: `user:${req.user.id}` });
          return redirect(SIGN_IN_PATH);
        },
      },
      {
        method: 'POST',
        path: '/dashboard/sign-out-everywhere',
        summary: "Ends every session of the user's account.",
        role: 'member',
        handle: async (req) => {
          const ended = await sessions.signOutEverywhere(req.user.id);
          await audit.record({ ...req.actor, action: 'dashboard.sign_out_everywhere', target: `user:${req.user.id}`, details: { sessions: ended } });
          return redirect(SIGN_IN_PATH);
        },
      },
    ],
  });
}
