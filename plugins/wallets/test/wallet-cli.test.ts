import test from 'ava';
// The composition's chains (by path: a package dependency on the gateway app would be a cycle).
import { ALL_CHAINS as chains, ADA_ACCOUNT_HEX, BTC_ZPUB, cliRunner, ETH_XPUB, ethWallet, ltcTestnetWallet, tronWallet } from '@gw/testing';
import { createTestDatabase, type TestDatabase } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
// The operator CLI itself (not a package dependency: the CLI app depends on this plugin).

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

const cli = cliRunner({
  plugins: [tenancyPlugin, walletsPlugin],
  chains,
  databaseUrl: () => database.url,
});

/** `wallet verify` of the project's key on `chain` with the challenge's `signature`, as JSON. */
const verifyWallet = (projectId: string, chain: string, signature: string) =>
  cli('wallet', 'verify', '--project', projectId, '--chain', chain, '--signature', signature, '--json');

// Published vectors: BIP-0084 test vectors; MetaMask/ethers m/44'/60'/0'/0/i; TronLink
// m/44'/195'/0'/0/0; Keystone/Eternl CIP-1852 base address; TonSwift "Test Wallet V5R1".
const VECTORS = [
  {
    chain: 'btc',
    xpub: BTC_ZPUB,
    addresses: ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'],
    path0: "m/84'/0'/0'/0/0",
  },
  {
    chain: 'eth',
    xpub: ETH_XPUB,
    addresses: ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0'],
    path0: "m/44'/60'/0'/0/0",
  },
  { chain: 'polygon', xpub: ETH_XPUB, addresses: ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94'], path0: "m/44'/60'/0'/0/0" },
  { chain: 'bsc', xpub: ETH_XPUB, addresses: ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94'], path0: "m/44'/60'/0'/0/0" },
  { chain: 'tron', xpub: tronWallet.xpub, addresses: ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'], path0: "m/44'/195'/0'/0/0" },
  {
    chain: 'ada',
    xpub: ADA_ACCOUNT_HEX,
    addresses: ['addr1qy8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mq4afdhv'],
    path0: "m/1852'/1815'/0'/0/0",
  },
  {
    chain: 'ton',
    xpub: '5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522',
    addresses: ['UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpce'],
    path0: "m/44'/607'/0'/0'",
  },
] as const;

test.serial('wallet preview reproduces published vectors', async (t) => {
  for (const vector of VECTORS) {
    const res = await cli('wallet', 'preview', '--chain', vector.chain, '--xpub', vector.xpub, '--count', String(vector.addresses.length), '--json');
    t.is(res.code, 0, res.stdout + res.stderr);
    t.is(res.json.chain, vector.chain);
    t.deepEqual(
      res.json.addresses.map((a: { address: string }) => a.address),
      [...vector.addresses],
      vector.chain,
    );
    t.deepEqual(
      res.json.addresses.map((a: { index: number }) => a.index),
      vector.addresses.map((_, i) => i),
    );
    t.is(res.json.addresses[0].path, vector.path0);
  }
});

test.serial('wallet preview gives the testnet forms for testnet keys', async (t) => {
  const ada = await cli('wallet', 'preview', '--chain', 'ada', '--xpub', ADA_ACCOUNT_HEX, '--network', 'testnet', '--count', '1', '--json');
  t.is(ada.json.addresses[0].address, 'addr_test1qq8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mqkt5dmn');
  const ton = await cli(
    'wallet',
    'preview',
    '--chain',
    'ton',
    '--xpub',
    '5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522',
    '--network',
    'testnet',
    '--count',
    '1',
    '--json',
  );
  // Testnet TON addresses carry the test-only flag: non-bounceable test-only form starts with 0Q.
  t.regex(ton.json.addresses[0].address, /^0Q/);
  const tron = await cli('wallet', 'preview', '--chain', 'tron', '--xpub', tronWallet.xpub, '--network', 'testnet', '--count', '1', '--json');
  t.is(tron.json.addresses[0].address, 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
});

test.serial('wallet preview: testnet, default count, limits and bad input', async (t) => {
  const testnet = await cli('wallet', 'preview', '--chain', 'eth', '--xpub', ETH_XPUB, '--network', 'testnet', '--json');
  t.is(testnet.code, 0);
  t.is(testnet.json.addresses.length, 10);
  const max = await cli('wallet', 'preview', '--chain', 'btc', '--xpub', BTC_ZPUB, '--count', '1000', '--json');
  t.is(max.json.addresses.length, 1000);
  t.is(max.json.addresses[999].path, "m/84'/0'/0'/0/999");
  for (const count of ['0', '1001', 'ten']) {
    t.is((await cli('wallet', 'preview', '--chain', 'btc', '--xpub', BTC_ZPUB, '--count', count)).code, 2, count);
  }
  const mismatch = await cli('wallet', 'preview', '--chain', 'btc', '--xpub', BTC_ZPUB, '--network', 'testnet', '--json');
  t.is(mismatch.code, 1);
  t.is(mismatch.json.error_code, 'wallet_kind_mismatch');
  const unknown = await cli('wallet', 'preview', '--chain', 'doge', '--xpub', BTC_ZPUB, '--json');
  t.is(unknown.json.error_code, 'validation_error');
  const human = await cli('wallet', 'preview', '--chain', 'eth', '--xpub', ETH_XPUB, '--count', '1');
  t.regex(human.stdout, /address: 0x9858EfFD232B4033E47d90003D41EC34EcaEda94/);
});

test.serial(
  'wallet preview reads the chains config like every command: chains.enabled, chains.testNetworks (a bad one is a config_error naming the key)',
  async (t) => {
    let overrides: Record<string, unknown> = {};
    const configured = cliRunner({ plugins: [tenancyPlugin, walletsPlugin], chains, databaseUrl: () => database.url, overrides: () => overrides });
    const preview = () => configured('wallet', 'preview', '--chain', 'ltc', '--xpub', ltcTestnetWallet.xpub, '--network', 'testnet', '--count', '1', '--json');
    const off = await preview();
    t.is(off.json.error_code, 'validation_error', 'ltc is off by default');
    overrides = { 'chains.enabled': ['btc', 'ltc'] };
    const on = await preview();
    t.is(on.code, 0, on.stdout + on.stderr);
    t.is(on.json.addresses[0].address, ltcTestnetWallet.address0);
    overrides = { 'chains.enabled': ['btc', 'ltc'], 'chains.testNetworks': { ltc: 'regtest' } };
    t.is((await preview()).json.addresses[0].address, 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg');
    overrides = { 'chains.enabled': ['btc', 'ltc'], 'chains.testNetworks': { ltc: 'regtset' } };
    const typo = await preview();
    t.is(typo.code, 1);
    t.is(typo.json.error_code, 'config_error');
    t.regex(typo.json.message, /^chains\.testNetworks\.ltc: "regtset" is not a network of this chain/);
  },
);

test.serial('wallet register, verify and list through the CLI', async (t) => {
  const project = await cli('project', 'create', '--kind', 'production', '--name', 'shop', '--json');
  t.is(project.code, 0, project.stdout);
  const projectId: string = project.json.project.id;
  const bad = await cli('wallet', 'register', '--project', projectId, '--chain', 'eth', '--xpub', 'garbage', '--json');
  t.is(bad.json.error_code, 'invalid_xpub_format');
  const registered = await cli('wallet', 'register', '--project', projectId, '--chain', 'eth', '--xpub', ETH_XPUB, '--json');
  t.is(registered.code, 0, registered.stdout);
  t.is(registered.json.challenge.sign_with_address, ethWallet.address0);
  const rejected = await verifyWallet(projectId, 'eth', await ethWallet.sign(registered.json.challenge.message, 1));
  t.is(rejected.code, 1);
  t.is(rejected.json.error_code, 'wallet_signature_rejected');
  const verified = await verifyWallet(projectId, 'eth', await ethWallet.sign(registered.json.challenge.message));
  t.is(verified.code, 0, verified.stdout);
  t.is(verified.json.wallet.state, 'verified');
  const again = await cli('wallet', 'register', '--project', projectId, '--chain', 'eth', '--xpub', ETH_XPUB, '--json');
  t.is(again.json.error_code, 'wallet_exists');
  const replaced = await cli('wallet', 'register', '--project', projectId, '--chain', 'eth', '--xpub', ETH_XPUB, '--replace', '--json');
  t.is(replaced.json.wallet.state, 'pending');
  const listed = await cli('wallet', 'list', '--project', projectId, '--json');
  t.is(listed.json.length, 1);
  t.is(listed.json[0].state, 'pending');
});
