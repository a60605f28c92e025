import test from 'ava';
import { adaChain } from '@gw/chain-ada';
import { btcChain } from '@gw/chain-btc';
import { ethChain } from '@gw/chain-eth';
import { tonChain } from '@gw/chain-ton';
import { tronChain } from '@gw/chain-tron';
import { CLI_ACTOR, isAppError, type ProjectKind, sql, sqlQuery } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { adaWallet, BTC_TPUB, btcBip137, btcTestnetWallet, btcWallet, ethWallet, foreignTonSign, tonWallet, tronWallet, type TestWallet } from '@gw/testing';

let gw: TestKernel;
let operatorId: string;
test.before(async () => {
  gw = await startTestKernel({ plugins: [tenancyPlugin, walletsPlugin], chains: [btcChain, ethChain, tronChain, adaChain, tonChain], role: 'gateway' });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('wallets-test', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
});

async function newProject(kind: ProjectKind): Promise<string> {
  const created = await gw.kernel.cradle.tenancyProjects.create({ name: `p-${Math.random().toString(36).slice(2)}`, kind, operator: operatorId }, CLI_ACTOR);
  return created.project.id;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
  throw new Error('expected an AppError');
}

async function bindingCount(projectId: string): Promise<number> {
  const row = await gw.kernel.cradle.db('wallets_bindings').where({ project_id: projectId }).count<{ n: string }[]>({ n: '*' });
  return Number(row[0]!.n);
}

async function auditActions(projectId: string): Promise<string[]> {
  return (await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: projectId }).whereLike('action', 'wallet.%').orderBy('id').select('action')).map(
    (r) => r.action,
  );
}

for (const [label, wallet] of [
  ['btc (BIP-322)', btcWallet],
  ['eth (ethers personal_sign)', ethWallet],
  ['tron (tronweb signMessageV2)', tronWallet],
  ['ada (CIP-30 COSE via CSL)', adaWallet],
  ['ton (TON Connect signData, ed25519)', tonWallet],
] as const satisfies readonly (readonly [string, TestWallet])[]) {
  test(`register + verify with a real ${label} signature`, async (t) => {
    const { walletsWallets } = gw.kernel.cradle;
    const projectId = await newProject('production');
    const registered = await walletsWallets.register({ projectId, chain: wallet.chain, xpub: wallet.xpub }, CLI_ACTOR);
    t.is(registered.wallet.state, 'pending');
    t.is(registered.wallet.network, 'mainnet');
    const message = registered.challenge.message;
    t.true(message.includes(projectId));
    t.true(message.includes(`chain ${wallet.chain}`));
    t.true(message.includes(registered.wallet.key_fingerprint));
    t.regex(message, /nonce [0-9a-f]{32}/);
    const ttl = Date.parse(registered.challenge.expires_at_iso) - Date.now();
    t.true(ttl > 23.9 * 3600_000 && ttl <= 24 * 3600_000);
    if (wallet.address0) t.is(registered.challenge.sign_with_address, wallet.address0);
    t.is(await codeOf(walletsWallets.requireVerifiedWallet(projectId, wallet.chain)), 'xpub_not_verified');

    const verified = await walletsWallets.verify({ projectId, chain: wallet.chain, signature: await wallet.sign(message) }, CLI_ACTOR);
    t.is(verified.state, 'verified');
    t.truthy(verified.verified_at_iso);
    const usable = await walletsWallets.requireVerifiedWallet(projectId, wallet.chain);
    t.is(usable.id, registered.wallet.id);
    t.is(usable.key.network, 'mainnet');
    t.deepEqual(await auditActions(projectId), ['wallet.register', 'wallet.verify']);
  });
}

test('a BIP-137 signature is accepted too', async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  const projectId = await newProject('production');
  const { challenge } = await walletsWallets.register({ projectId, chain: 'btc', xpub: btcWallet.xpub }, CLI_ACTOR);
  t.is((await walletsWallets.verify({ projectId, chain: 'btc', signature: btcBip137(challenge.message) }, CLI_ACTOR)).state, 'verified');
});

test('a btc key in key-origin form ([fingerprint/84h/0h/0h]zpub, BIP 380) binds the same key: same fingerprint and address 0, the input kept as given, verified by the same signature', async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  const [bare, withOrigin] = [await newProject('production'), await newProject('production')];
  const input = `[73c5da0a/84h/0h/0h]${btcWallet.xpub}`;
  const plain = await walletsWallets.register({ projectId: bare, chain: 'btc', xpub: btcWallet.xpub }, CLI_ACTOR);
  const registered = await walletsWallets.register({ projectId: withOrigin, chain: 'btc', xpub: input }, CLI_ACTOR);
  t.is(registered.wallet.key_fingerprint, plain.wallet.key_fingerprint);
  t.is(registered.challenge.sign_with_address, plain.challenge.sign_with_address);
  t.is(registered.challenge.sign_with_address, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  t.is(registered.challenge.sign_with_path, "m/84'/0'/0'/0/0");
  t.is(
    (await walletsWallets.verify({ projectId: withOrigin, chain: 'btc', signature: await btcWallet.sign(registered.challenge.message) }, CLI_ACTOR)).state,
    'verified',
  );
  const usable = await walletsWallets.requireVerifiedWallet(withOrigin, 'btc');
  t.is(usable.key.input, input);
  t.is(usable.key.canonical, plain.wallet.canonical_key);
  t.is(registered.wallet.canonical_key, plain.wallet.canonical_key);
  // An origin whose path is not Bitcoin's mainnet account path is refused before anything is written.
  const refused = await newProject('production');
  t.is(
    await codeOf(walletsWallets.register({ projectId: refused, chain: 'btc', xpub: `[73c5da0a/84h/1h/0h]${btcWallet.xpub}` }, CLI_ACTOR)),
    'invalid_xpub_format',
  );
  t.is(await bindingCount(refused), 0);
});

test('foreign signatures are rejected and change nothing', async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  for (const [wallet, foreign] of [
    [ethWallet, (m: string) => ethWallet.sign(m, 1)],
    [btcWallet, (m: string) => btcWallet.sign(m, 1)],
    [tronWallet, (m: string) => tronWallet.sign(m, 1)],
    [adaWallet, (m: string) => adaWallet.sign(m, 1)],
    [tonWallet, foreignTonSign],
  ] as const) {
    const projectId = await newProject('production');
    const { challenge } = await walletsWallets.register({ projectId, chain: wallet.chain, xpub: wallet.xpub }, CLI_ACTOR);
    t.is(
      await codeOf(walletsWallets.verify({ projectId, chain: wallet.chain, signature: await foreign(challenge.message) }, CLI_ACTOR)),
      'wallet_signature_rejected',
      wallet.chain,
    );
    // A genuine signature of another text is just as foreign.
    t.is(
      await codeOf(walletsWallets.verify({ projectId, chain: wallet.chain, signature: await wallet.sign(`${challenge.message}.`) }, CLI_ACTOR)),
      'wallet_signature_rejected',
    );
    const [listed] = await walletsWallets.list(projectId);
    t.is(listed!.state, 'pending');
    t.deepEqual(await auditActions(projectId), ['wallet.register']);
  }
  const projectId = await newProject('production');
  await walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  t.is(await codeOf(walletsWallets.verify({ projectId, chain: 'eth', signature: 'not a signature' }, CLI_ACTOR)), 'validation_error');
});

test('key errors: wrong network kind, malformed key, unknown chain; nothing registered', async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  const production = await newProject('production');
  t.is(await codeOf(walletsWallets.register({ projectId: production, chain: 'btc', xpub: BTC_TPUB }, CLI_ACTOR)), 'wallet_kind_mismatch');
  t.is(await codeOf(walletsWallets.register({ projectId: production, chain: 'btc', xpub: 'xpub-not-really' }, CLI_ACTOR)), 'invalid_xpub_format');
  t.is(await codeOf(walletsWallets.register({ projectId: production, chain: 'eth', xpub: btcWallet.xpub.slice(0, -2) }, CLI_ACTOR)), 'invalid_xpub_format');
  t.is(await codeOf(walletsWallets.register({ projectId: production, chain: 'doge', xpub: ethWallet.xpub }, CLI_ACTOR)), 'validation_error');
  t.is(
    await codeOf(walletsWallets.register({ projectId: production, chain: 'polygon', xpub: ethWallet.xpub }, CLI_ACTOR)),
    'validation_error',
    'disabled chain',
  );
  const testnet = await newProject('testnet');
  t.is(await codeOf(walletsWallets.register({ projectId: testnet, chain: 'btc', xpub: btcWallet.xpub }, CLI_ACTOR)), 'wallet_kind_mismatch');
  t.is(await bindingCount(production), 0);
  t.is(await bindingCount(testnet), 0);
  t.deepEqual(await auditActions(production), []);
  t.is(await codeOf(walletsWallets.register({ projectId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR)), 'project_not_found');
});

test('testnet and sandbox projects bind testnet keys', async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  for (const kind of ['testnet', 'sandbox'] as const) {
    const projectId = await newProject(kind);
    const { wallet, challenge } = await walletsWallets.register({ projectId, chain: 'btc', xpub: btcTestnetWallet.xpub }, CLI_ACTOR);
    t.is(wallet.network, 'testnet');
    t.is(wallet.derivation_path_prefix, "m/84'/1'/0'");
    t.is(challenge.sign_with_address, btcTestnetWallet.address0!);
    t.is((await walletsWallets.verify({ projectId, chain: 'btc', signature: await btcTestnetWallet.sign(challenge.message) }, CLI_ACTOR)).state, 'verified');
  }
});

test('an expired challenge is refused and changes nothing; registering again issues a fresh one', async (t) => {
  const { walletsWallets, db } = gw.kernel.cradle;
  const projectId = await newProject('production');
  const first = await walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  await db('wallets_bindings')
    .where({ id: first.wallet.id })
    .update({ challenge_expires_at: new Date(Date.now() - 1000) });
  const signature = await ethWallet.sign(first.challenge.message);
  t.is(await codeOf(walletsWallets.verify({ projectId, chain: 'eth', signature }, CLI_ACTOR)), 'wallet_challenge_expired');
  t.is((await walletsWallets.list(projectId))[0]!.state, 'pending');

  const second = await walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  t.not(second.challenge.message, first.challenge.message);
  t.not(second.wallet.id, first.wallet.id);
  t.is(await bindingCount(projectId), 2, 'the replaced pending binding is kept as history');
  // The old challenge's signature does not verify the new one.
  t.is(await codeOf(walletsWallets.verify({ projectId, chain: 'eth', signature }, CLI_ACTOR)), 'wallet_signature_rejected');
  await walletsWallets.verify({ projectId, chain: 'eth', signature: await ethWallet.sign(second.challenge.message) }, CLI_ACTOR);
  t.is(await codeOf(walletsWallets.verify({ projectId, chain: 'eth', signature }, CLI_ACTOR)), 'wallet_already_verified');
});

test('replacing a verified wallet needs replace, and the new key must be verified again', async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  const projectId = await newProject('production');
  const first = await walletsWallets.register({ projectId, chain: 'tron', xpub: tronWallet.xpub }, CLI_ACTOR);
  await walletsWallets.verify({ projectId, chain: 'tron', signature: await tronWallet.sign(first.challenge.message) }, CLI_ACTOR);
  t.is(await codeOf(walletsWallets.register({ projectId, chain: 'tron', xpub: tronWallet.xpub }, CLI_ACTOR)), 'wallet_exists');
  t.is((await walletsWallets.requireVerifiedWallet(projectId, 'tron')).id, first.wallet.id);
  const replaced = await walletsWallets.register({ projectId, chain: 'tron', xpub: tronWallet.xpub, replace: true }, CLI_ACTOR);
  t.is(replaced.wallet.state, 'pending');
  t.is(await codeOf(walletsWallets.requireVerifiedWallet(projectId, 'tron')), 'xpub_not_verified');
  t.deepEqual(await auditActions(projectId), ['wallet.register', 'wallet.verify', 'wallet.replace']);
});

test('requireVerifiedWallet without a binding is wallet_not_bound (422)', async (t) => {
  const projectId = await newProject('production');
  const error = await t.throwsAsync(gw.kernel.cradle.walletsWallets.requireVerifiedWallet(projectId, 'eth'));
  t.true(isAppError(error));
  t.like(error, { code: 'wallet_not_bound', status: 422 });
  const pending = await newProject('production');
  await gw.kernel.cradle.walletsWallets.register({ projectId: pending, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  t.like(await t.throwsAsync(gw.kernel.cradle.walletsWallets.requireVerifiedWallet(pending, 'eth')), { code: 'xpub_not_verified', status: 409 });
});

test('concurrent registrations of one chain leave exactly one current binding', async (t) => {
  const { walletsWallets, db } = gw.kernel.cradle;
  const projectId = await newProject('production');
  await Promise.all(Array.from({ length: 8 }, () => walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR)));
  const current = await db('wallets_bindings').where({ project_id: projectId }).whereNull('superseded_at');
  t.is(current.length, 1);
  t.is(await bindingCount(projectId), 8);
});

test('currentBindingSql, the part lent to the address pool (ADR 0003), is the current binding as its declared columns', async (t) => {
  const { walletsWallets, db } = gw.kernel.cradle;
  const projectId = await newProject('production');
  const lent = (chain: string) => walletsWallets.currentBindingSql(sql`${projectId}::text`, sql`${chain}::text`);
  const rows = async (chain: string) => sqlQuery<Record<string, unknown>>(db, sql`select * from (${lent(chain)}) as lent`);
  t.deepEqual(await rows('eth'), [], 'no binding, no row');
  const registered = await walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  const [pending] = await rows('eth');
  t.deepEqual(Object.keys(pending!), [...lent('eth').columns], 'exactly the columns the contract declares');
  t.deepEqual(pending, { id: registered.wallet.id, state: 'pending' });
  await walletsWallets.verify({ projectId, chain: 'eth', signature: await ethWallet.sign(registered.challenge.message) }, CLI_ACTOR);
  t.deepEqual(await rows('eth'), [{ id: registered.wallet.id, state: 'verified' }]);
  // A new registration supersedes the verified binding: the part lends only the current one.
  const again = await walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub, replace: true }, CLI_ACTOR);
  t.deepEqual(await rows('eth'), [{ id: again.wallet.id, state: 'pending' }]);
  t.deepEqual(await rows('btc'), [], 'other chains are not lent');
});
