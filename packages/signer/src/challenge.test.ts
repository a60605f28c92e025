import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from 'bech32';
import type { ChainAdapter, ChainModule } from '@gw/chain-api';
import { configuredAdapter } from '@gw/chain-api/testing';
import { adaChain } from '@gw/chain-ada';
import { btcChain } from '@gw/chain-btc';
import { ltcChain } from '@gw/chain-ltc';
import { BTC, LTC, type Bip84Chain } from './chains.js';
import { bip84Account, cardanoAccount, MNEMONIC, OTHER_MNEMONIC, runSignerHere, runSignerProcess } from './testing.js';

// The gateway's own challenge text (plugins/wallets/src/services/challenge.ts), per chain.
const challengeFor = (chain: string): string =>
  `Gateway wallet ownership challenge: project 01JDX3V5Q8M2K7ZB9C4N6R1T0W, chain ${chain}, key 1a2b3c4d5e6f7a8b, nonce 9c1e5f7a3b2d4c6e8f0a1b2c3d4e5f60, expires 2026-11-29T20:00:00.000Z`;
const CHALLENGE = challengeFor('btc');

const dir = mkdtempSync(join(tmpdir(), 'gateway-signer-challenge-'));
let files = 0;
const file = (content: string): string => {
  const path = join(dir, String(files++));
  writeFileSync(path, content);
  return path;
};

/** The chain adapter as the gateway runs it, test networks on `network` where it is not the default. */
function adapterFor(module: ChainModule, network: string): ChainAdapter {
  return network === 'regtest' ? configuredAdapter(module, { testNetworks: { [module.definition.id]: 'regtest' } }) : configuredAdapter(module);
}

const cases: [Bip84Chain, ChainModule, string][] = [
  [BTC, btcChain, 'regtest'],
  [BTC, btcChain, 'bitcoin'],
  [LTC, ltcChain, 'regtest'],
  [LTC, ltcChain, 'litecoin'],
];
for (const [chain, module, network] of cases) {
  test(`${chain.name} ${network}: the challenge signed with the mnemonic and with the account key is accepted by the chain adapter's verifyOwnership`, async (t) => {
    const adapter = adapterFor(module, network);
    const CHALLENGE = challengeFor(chain.id);
    const account = bip84Account(chain, network);
    const kind = chain.networks[network]!.kind;
    const key = adapter.parseAccountKey(account.xpub, kind);

    // Message in a file (written with a final newline, as editors do), mnemonic on standard input.
    const byMnemonic = await runSignerHere(
      ['challenge', '--yes', '--chain', chain.id, '--network', network, '--message-file', file(`${CHALLENGE}\n`), '--key-stdin'],
      MNEMONIC,
    );
    t.is(byMnemonic.code, 0, byMnemonic.stderr);
    const signature = byMnemonic.stdout.trim();
    t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE}.`, signature }), 'a signature of this message only');
    t.true(byMnemonic.stderr.includes(`receive index 0, ${adapter.deriveAddress(key, 0).address}`), byMnemonic.stderr);

    // Message on standard input, account private key in a file.
    const byAccountKey = await runSignerHere(['challenge', '--yes', '--chain', chain.id, '--network', network, '--key-file', file(account.xprv)], CHALLENGE);
    t.is(byAccountKey.code, 0, byAccountKey.stderr);
    t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: byAccountKey.stdout.trim() }));

    const otherSeed = await runSignerHere(
      ['challenge', '--yes', '--chain', chain.id, '--network', network, '--message-file', file(CHALLENGE), '--key-stdin'],
      OTHER_MNEMONIC,
    );
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: otherSeed.stdout.trim() }), "another seed's signature is refused");
  });
}

test('Bitcoin: --account signs with receive index 0 of another account', async (t) => {
  const adapter = configuredAdapter(btcChain);
  const key = adapter.parseAccountKey(bip84Account(BTC, 'bitcoin', MNEMONIC, 2).xpub, 'mainnet');
  const run = await runSignerHere(
    ['challenge', '--yes', '--chain', 'btc', '--network', 'bitcoin', '--account', '2', '--message-file', file(CHALLENGE), '--key-stdin'],
    MNEMONIC,
  );
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /m\/84'\/0'\/2'\/0\/0/);
  t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: run.stdout.trim() }));
});

for (const network of ['preprod', 'cardano']) {
  test(`Cardano ${network}: the CIP-30 DataSignature made by the command is accepted by the Cardano adapter's verifyOwnership`, async (t) => {
    const adapter = configuredAdapter(adaChain);
    const CHALLENGE = challengeFor('ada');
    const account = cardanoAccount();
    const key = adapter.parseAccountKey(account.publicHex, network === 'cardano' ? 'mainnet' : 'testnet');
    const run = await runSignerProcess(['challenge', '--yes', '--chain', 'ada', '--network', network, '--message-file', file(CHALLENGE), '--key-stdin'], {
      stdin: MNEMONIC,
    });
    t.is(run.code, 0, run.stderr);
    const signature = run.stdout.trim();
    t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE} `, signature }));
    t.true(run.stderr.includes(adapter.deriveAddress(key, 0).address));

    const xsk = bech32.encode('acct_xsk', bech32.toWords(account.prv.as_bytes()), 1000);
    const byAccountKey = await runSignerHere(
      ['challenge', '--yes', '--chain', 'ada', '--network', network, '--key-stdin', '--message-file', file(CHALLENGE)],
      xsk,
    );
    t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: byAccountKey.stdout.trim() }));
  });
}

test('challenge refusals: no message source, an unknown chain or network, a key of another network', async (t) => {
  const noMessage = await runSignerHere(['challenge', '--yes', '--chain', 'btc', '--network', 'regtest', '--key-stdin'], MNEMONIC);
  t.is(noMessage.code, 2);
  t.regex(noMessage.stderr, /refused \(usage\): Standard input carries the secret; give the challenge with --message-file/);
  const unknownChain = await runSignerHere(
    ['challenge', '--yes', '--chain', 'doge', '--network', 'regtest', '--key-stdin', '--message-file', file(CHALLENGE)],
    MNEMONIC,
  );
  t.is(unknownChain.code, 2);
  const unknownNetwork = await runSignerHere(
    ['challenge', '--yes', '--chain', 'btc', '--network', 'mainnet', '--key-stdin', '--message-file', file(CHALLENGE)],
    MNEMONIC,
  );
  t.regex(unknownNetwork.stderr, /refused \(wrong_network\): Bitcoin has no network "mainnet"/);
  const testnetKey = await runSignerHere(
    ['challenge', '--yes', '--chain', 'btc', '--network', 'bitcoin', '--key-stdin', '--message-file', file(CHALLENGE)],
    bip84Account(BTC, 'regtest').xprv,
  );
  t.regex(testnetKey.stderr, /refused \(wrong_network\): This is a testnet key \(tprv\)/);
  t.is(testnetKey.stdout, '');
});

test('challenge: any text but the gateway’s ownership challenge for that chain is refused; the challenge is shown and needs a confirmation', async (t) => {
  for (const text of [
    'I, the owner of this wallet, authorize the transfer of everything.',
    `${CHALLENGE} and more`,
    CHALLENGE.replace('nonce 9c1e', 'nonce 9C1E'),
    `${CHALLENGE}\n${CHALLENGE}`,
  ]) {
    const run = await runSignerHere(['challenge', '--yes', '--chain', 'btc', '--network', 'regtest', '--message-file', file(text), '--key-stdin'], MNEMONIC);
    t.is(run.code, 1, text);
    t.regex(run.stderr, /refused \(not_a_challenge\): The message is not the gateway's wallet-ownership challenge/);
    t.is(run.stdout, '');
  }
  const otherChain = await runSignerHere(
    ['challenge', '--yes', '--chain', 'ltc', '--network', 'regtest', '--message-file', file(CHALLENGE), '--key-stdin'],
    MNEMONIC,
  );
  t.regex(otherChain.stderr, /refused \(not_a_challenge\): The challenge is for chain btc; --chain is ltc/);

  // Without --yes and without a terminal to ask on, nothing is signed; the challenge was shown first.
  const unconfirmed = await runSignerHere(
    ['challenge', '--chain', 'btc', '--network', 'regtest', '--message-file', file(CHALLENGE), '--key-file', file(MNEMONIC)],
    '',
  );
  t.is(unconfirmed.code, 1);
  t.regex(
    unconfirmed.stderr,
    /The gateway's wallet-ownership challenge for project 01JDX3V5Q8M2K7ZB9C4N6R1T0W, chain btc, key 1a2b3c4d5e6f7a8b, expires 2026-11-29T20:00:00\.000Z:\n  Gateway wallet/,
  );
  t.regex(unconfirmed.stderr, /refused \(not_confirmed\): Standard input is not a terminal/);
  t.is(unconfirmed.stdout, '');
  const messageOnStdin = await runSignerHere(['challenge', '--chain', 'btc', '--network', 'regtest', '--key-file', file(MNEMONIC)], CHALLENGE);
  t.regex(messageOnStdin.stderr, /refused \(not_confirmed\): Standard input carried the message/);
});
