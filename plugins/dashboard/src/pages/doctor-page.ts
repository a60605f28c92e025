import { html, runReadinessChecks, type ReadinessFinding } from '@gw/kernel';
import { badge, table } from '../web/components.js';
import { definePage, page } from '../web/dashboard-page.js';

/**
 * `gateway doctor` in the browser (ADR 0007), scoped to the signed-in user's operator: checks
 * about projects run for that operator's projects only, so no other operator's project is named;
 * deployment-wide checks (master key, rate providers, watchers) are shown in full to
 * administrators and as their outcome alone to read-only members (docs/decisions.md).
 */
export const doctorPage = definePage({
  nav: { label: 'Readiness', scope: 'operator', path: '/dashboard/doctor', order: 70 },
  cli: ['doctor'],
  summary: "What is missing for real payments (the readiness checks of `gateway doctor`), for the operator's projects and the deployment.",
  render: async (req) => {
    const checks = req.services.readiness.checks();
    const admin = req.user.role === 'admin';
    const [projects, deployment] = await Promise.all([
      runReadinessChecks(
        checks.filter((c) => c.about === 'projects'),
        { operatorId: req.user.operatorId },
      ),
      runReadinessChecks(checks.filter((c) => c.about !== 'projects')),
    ]);
    const summaries = new Map(checks.map((c) => [c.name, c.summary]));
    const outcome = (f: ReadinessFinding) => badge(f.ok ? 'ok' : f.severity!);
    const full = (f: ReadinessFinding) => [html`<code>${f.check}</code>`, summaries.get(f.check) ?? '', outcome(f), f.detail, f.fix ?? ''];
    const trimmed = (f: ReadinessFinding) => [html`<code>${f.check}</code>`, summaries.get(f.check) ?? '', outcome(f)];
    const errors = projects.errors + deployment.errors;
    const warnings = projects.warnings + deployment.warnings;
    return page(
      'Readiness',
      html`<h1>Readiness</h1>
<p class="note">The checks of <code>gateway doctor</code>: what is missing before real payments work. They read the database and the configuration only.</p>
<p>${errors === 0 ? 'Nothing blocks real payments' : `${errors} problem(s) block real payments`}${warnings > 0 ? `; ${warnings} warning(s)` : ''}.</p>
<h2>Your projects</h2>
${table('Checks of your projects', ['Check', 'What is checked', 'Outcome', 'Found', 'What to do'], projects.checks.map(full), 'No check is about projects in this deployment.')}
<h2>Deployment</h2>
${
  admin
    ? table('Checks of the deployment', ['Check', 'What is checked', 'Outcome', 'Found', 'What to do'], deployment.checks.map(full))
    : html`<p class="note">You are a read-only member: the details of the deployment's checks are for administrators.</p>
${table('Checks of the deployment', ['Check', 'What is checked', 'Outcome'], deployment.checks.map(trimmed))}`
}`,
    );
  },
});
