import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { stopAll, tronWallet } from '@gw/testing';
import { MailSink, signedInUser, startDashboardKernel } from './kernel.js';

// Issue 36: the wallets page told a newcomer with a TRON key "20 available" while every trx invoice
// was refused with 422 tron_no_activated_addresses_available. It now shows what is activated, and
// what to do about it, from the pool's own counts.

let gw: TestKernel, sink: MailSink;
test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink, { 'plugins.address-pool.targetFree': 5 });
});
test.after.always(() => stopAll(gw, sink));

/** The cells of the address-pool table's row of `chain`, as text. */
function poolRow(html: string, chain: string): string[] {
  const table = /<table[^>]*>(?:(?!<\/table>)[\s\S])*Address pool per verified wallet(?:(?!<\/table>)[\s\S])*<\/table>/.exec(html)?.[0] ?? '';
  const row = [...table.matchAll(/<tr>((?:(?!<\/tr>)[\s\S])*)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>((?:(?!<\/td>)[\s\S])*)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()),
  );
  return row.find((cells) => cells[0] === chain) ?? [];
}

test('the wallets page shows how many TRON pool addresses are activated and available, and how to activate them', async (t) => {
  const { client, user } = await signedInUser(gw, sink, 'admin');
  const { tenancyProjects, walletsWallets, addressPoolReplenisher, addressPoolService, db } = gw.kernel.cradle;
  const { project } = await tenancyProjects.create({ name: 'tron-wallets', kind: 'testnet', operator: user.operator_id }, CLI_ACTOR);
  const { challenge } = await walletsWallets.register({ projectId: project.id, chain: 'tron', xpub: tronWallet.xpub }, CLI_ACTOR);
  await walletsWallets.verify({ projectId: project.id, chain: 'tron', signature: await tronWallet.sign(challenge.message) }, CLI_ACTOR);
  await addressPoolReplenisher.replenish({ projectId: project.id });
  const path = `/dashboard/projects/${project.id}/wallets`;

  const before = await client.get(path);
  t.is(before.status, 200);
  // Chain, Available, Allocated, Cooldown, Overlay, Activated, Total, ...
  t.deepEqual(poolRow(before.text, 'tron').slice(0, 7), ['tron', '0', '0', '0', '0', '0 of 5', '5']);
  t.regex(before.text, /tron: 5 derived, 0 activated, 0 available for invoices: tron invoices need activated addresses; run an activation plan/);
  t.regex(before.text, /send TRX to them/);

  // The watchers find one on chain (through the pool's contract, as they do).
  const row = await db('address_pool_addresses').where({ project_id: project.id, derivation_index: 1 }).first();
  t.is((await addressPoolService.markActivated([row.id], { by: 'account_on_chain' }, { actor: 'watchers', channel: 'system' })).length, 1);

  const after = await client.get(path);
  t.deepEqual(poolRow(after.text, 'tron').slice(0, 7), ['tron', '1', '0', '0', '0', '1 of 5', '5']);
  t.notRegex(after.text, /need activated addresses/);
});
