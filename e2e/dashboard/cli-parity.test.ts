import test from 'ava';
import { buildDeclared, type Cradle } from '@gw/kernel';
import { plugins } from '@gw/app-gateway';
import { CLI_ONLY_COMMANDS, CLI_PENDING_COMMANDS, FRAME_PAGES } from '@gw/plugin-dashboard/pages';
import { DASHBOARD_PAGES, type ContributedPage } from '@gw/plugin-dashboard/contract';

// The dashboard and the CLI cannot drift: every operator CLI command of the build is done by a
// dashboard route (its `cli`), or is CLI-only with a reason, or is listed as pending.

/**
 * The `cli` of every route of the frame's pages and those the build's plugins contribute; route
 * factories only read services when called, so a stub cradle serves.
 */
function dashboardCommands(): Map<string, string> {
  const cradle = new Proxy({}, { get: () => ({}) }) as Cradle;
  const contributed = plugins.flatMap((p) =>
    (p.contributes ?? []).filter((c) => c.point.id === DASHBOARD_PAGES.id).flatMap((c) => buildDeclared(c.part, cradle, p.id) as readonly ContributedPage[]),
  );
  const pages = [...FRAME_PAGES.map((page) => ({ page, services: cradle as unknown })), ...contributed];
  const out = new Map<string, string>();
  for (const { page, services } of pages)
    for (const route of page.routes(services as never)) for (const command of route.cli ?? []) out.set(command, `${route.method} ${route.path}`);
  return out;
}

test('every CLI command of the build is a dashboard action, CLI-only with a reason, or pending; the lists name only real commands', (t) => {
  const cli = new Set(plugins.flatMap((p) => p.cli ?? []).map((c) => `${c.noun} ${c.verb}`.trim()));
  const kernel = ['db migrate', 'db status', 'doctor', 'master-key reseal'];
  for (const command of kernel) cli.add(command);
  const done = dashboardCommands();
  const unmapped = [...cli].filter((c) => !done.has(c) && !(c in CLI_ONLY_COMMANDS) && !CLI_PENDING_COMMANDS.includes(c));
  t.deepEqual(unmapped, [], 'CLI commands with no dashboard action: add the action (route `cli`), or list them in src/pages/index.ts');
  const unknown = [...done.keys(), ...Object.keys(CLI_ONLY_COMMANDS), ...CLI_PENDING_COMMANDS].filter((c) => !cli.has(c));
  t.deepEqual(unknown, [], 'names that are no CLI command');
  const both = [...done.keys()].filter((c) => c in CLI_ONLY_COMMANDS || CLI_PENDING_COMMANDS.includes(c));
  t.deepEqual(both, [], 'commands done by the dashboard must leave the CLI-only and pending lists');
});
