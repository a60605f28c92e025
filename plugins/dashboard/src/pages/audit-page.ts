import { html, type AuditChannel } from '@gw/kernel';
import { definePage, page } from '../web/dashboard-page.js';
import { filteredList, jsonBlock, when, type FilterField } from '../web/filters.js';

/** The audit log's channels (the kernel's check constraint). */
export const AUDIT_CHANNELS: readonly AuditChannel[] = ['rest', 'mcp', 'cli', 'dashboard', 'system', 'claim_page', 'payer_page', 'btcpay'];
/** How many of the operator's projects the log reads at once (the switcher's bound, ten times). */
const PROJECTS_MAX = 1000;
const PATH = '/dashboard/audit';

/**
 * The audit log of the operator's projects, newest first, filtered by project, actor and channel.
 * Rows without a project (operator-wide actions) are not shown: nothing says which operator they
 * belong to.
 */
export const auditPage = definePage({
  nav: { label: 'Audit log', scope: 'operator', path: PATH, order: 80 },
  summary: "The audit log of the operator's projects, filtered by project, actor and channel (newest first, cursor-paginated).",
  render: async (req) => {
    const projects = await req.services.tenancyProjects.listForOperator(req.user.operatorId, { limit: PROJECTS_MAX });
    const fields: FilterField[] = [
      { name: 'project', label: 'Project', choices: projects.map((p) => p.id), labels: new Map(projects.map((p) => [p.id, `${p.name} (${p.kind})`])) },
      { name: 'actor', label: 'Actor', max: 200, placeholder: 'user:01J… or operator-cli' },
      { name: 'channel', label: 'Channel', choices: AUDIT_CHANNELS },
    ];
    const listing = filteredList(req, PATH, fields);
    const { filters } = listing;
    const names = new Map(projects.map((p) => [p.id, p.name]));
    const list = await req.services.audit.list({
      projectIds: filters['project'] ? [filters['project']] : projects.map((p) => p.id),
      actor: filters['actor'],
      channel: filters['channel'] as AuditChannel | undefined,
      ...listing.page,
    });
    return page(
      'Audit log',
      html`<h1>Audit log</h1>
<p class="note">Every write through the API, MCP, the CLI and this dashboard, with who did it.</p>
${listing.table(
  'Audit filters',
  {
    caption: 'Audit rows, newest first',
    head: ['When', 'Project', 'Actor', 'Channel', 'Action', 'Target', 'Details'],
    row: (r) => [
      when(r.created_at_iso),
      r.project_id ? (names.get(r.project_id) ?? r.project_id) : '—',
      html`<code>${r.actor}</code>`,
      r.channel,
      r.action,
      r.target ? html`<code class="wrap">${r.target}</code>` : '—',
      r.details ? html`<details><summary>details</summary>${jsonBlock(r.details)}</details>` : '—',
    ],
  },
  list.items,
  'No audit rows match.',
)}`,
    );
  },
});
