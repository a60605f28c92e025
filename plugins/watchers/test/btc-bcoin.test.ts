/**
 * Watchers against a real Bitcoin node. Node: bcoin 1.0.2 on regtest (bcoin.ts, bcoin-launcher.cjs),
 * read through the `bitcoin-core` JSON-RPC provider kind, standing in for btc/signet (its addresses
 * are encoded with testnet's prefixes, as the gateway's testnet projects derive them). Payments are
 * real wallet transactions: seen in the node's mempool, then mined into real blocks; the reorg is
 * `invalidateblock` followed by new blocks.
 */
import test from 'ava';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS } from '../../invoices/test/helpers.js';
import { Receiver, type TestProject } from '../../webhooks/test/helpers.js';
import { Bcoin } from './bcoin.js';
import { startRegtestGateway, watcherScenario } from './scenario.js';

let node: Bcoin;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;

test.before(async () => {
  node = await Bcoin.start();
  // Coinbase outputs mature after 100 blocks; segwit is active from height 432 on bcoin's regtest.
  await node.mine(440);
  receiver = await Receiver.start();
  ({ gw, project } = await startRegtestGateway({
    chains: ALL_CHAINS,
    chain: 'btc',
    network: 'signet',
    coin: 'btc',
    provider: { name: 'bcoin', url: node.url, username: 'gateway', password: node.apiKey },
    startHeight: (await node.height()) + 1,
    receiver,
  }));
});
test.after.always(async () => {
  await gw?.close();
  await receiver?.close();
  await node?.stop();
});

const { scan, uid, invoice, get, eventsOf, payToPaid } = watcherScenario(() => ({ gw, project, receiver }), 'btc', 'signet');

test.serial('bcoin regtest: a payment to the invoice address is detected from the mempool, confirms to paid with a signed webhook; invalidateblock and new blocks revert it; rebroadcast and re-mined it is paid again', async (t) => {
  const inv = await invoice({ coin: 'btc', amount_crypto: '0.25' });
  t.regex(inv.address, /^tb1q/);
  const { txid, blockHash } = await payToPaid(t, node, inv, 25_000_000n);

  // The block holding the payment is invalidated and a longer branch without it is mined.
  const paidHeight = await node.height();
  await node.rpc('invalidateblock', [blockHash]);
  const forkHeight = await node.height();
  t.is(forkHeight, paidHeight - inv.confirmation_threshold);
  // bcoin puts a disconnected transaction back into an empty mempool only when its wallet rebroadcasts it.
  t.deepEqual(await node.mempool(), []);
  await node.mine(inv.confirmation_threshold + 1);
  const report = await scan();
  t.is(report.reorgedTo, forkHeight);
  const reverted = await get(inv.id);
  t.is(reverted.status, 'reverted');
  t.is(reverted.transactions[0].status, 'reverted');
  await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.reverted'), 20_000);

  // The payer's wallet rebroadcasts the payment: back in the mempool, mined on the new branch, paid again.
  // The wallet follows the disconnected block on its own schedule: resend until the node takes it back.
  await waitFor(async () => {
    await node.wallet('POST', '/wallet/primary/resend');
    return (await node.mempool()).includes(txid);
  }, 20_000);
  await node.mine(inv.confirmation_threshold);
  await scan();
  const repaid = await get(inv.id);
  t.is(repaid.status, 'paid');
  await waitFor(async () => eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length === 2, 20_000);
});

test.serial('bcoin regtest: an under-payment ends partial', async (t) => {
  const inv = await invoice({ coin: 'btc', amount_crypto: '1' });
  const txid = await node.send(inv.address, 40_000_000n);
  await node.mine(inv.confirmation_threshold);
  await scan();
  const partial = await get(inv.id);
  t.is(partial.status, 'partial');
  t.like(partial.transactions[0], { tx_hash: txid, amount_units: '40000000', status: 'confirmed' });
  await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.partial'), 20_000);
  t.is(eventsOf(inv.id).find((e) => e.event_type === 'invoice.partial')!.data.paid_units, '40000000');
});

test.serial('bcoin regtest: a stray payment to a free pool address is an orphan, attributed to a new paid invoice', async (t) => {
  const [row] = await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: project.projectId, chain: 'btc', state: 'available' }).orderBy('derivation_index', 'desc').select('address');
  const spare = (row as { address: string }).address;
  const txid = await node.send(spare, 10_000_000n);
  // A node's whole mempool is matched against every pool address: the stray payment is seen before its block.
  t.is((await scan()).mempool?.transfers, 1);
  const early = await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${txid}`, project);
  t.like(early.body.items[0], { tx_hash: txid, to_address: spare, status: 'mempool', block_height: null, attributed: false });
  await node.mine(3);
  await scan();
  const listed = await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${txid}`, project);
  t.is(listed.status, 200, JSON.stringify(listed.body));
  t.like(listed.body.items[0], { tx_hash: txid, to_address: spare, amount_units: '10000000', coin: 'btc', chain: 'btc', network: 'signet', attributed: false });
  const outputIndex = listed.body.items[0].tx_output_index;

  const externalId = uid();
  const attributed = await signedFetch(gw.url, `/api/v1/orphan-payments/${txid}/attribute`, { ...project, method: 'POST', body: { external_id: externalId, tx_output_index: outputIndex } });
  t.is(attributed.status, 200, JSON.stringify(attributed.body));
  t.like(attributed.body, { status: 'paid', external_id: externalId, amount_crypto_units: '10000000', coin: 'btc', address: spare });
  t.is(attributed.body.transactions[0].tx_hash, txid);
  await waitFor(async () => eventsOf(attributed.body.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
});
