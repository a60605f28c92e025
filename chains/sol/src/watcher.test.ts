import test from 'ava';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { ProviderPool, type ChainWatcher, type WatchedAddresses } from '@gw/chain-api';
import { configuredAdapter, watchedSet } from '@gw/chain-api/testing';
import { LiteSvmLedger } from '../test/litesvm-rpc.js';
import { ata, fundedSigner, installMint, LAMPORTS_PER_SOL, mintTo, solPayment, tokenPayment, createAta } from '../test/payments.js';
import { solChain } from './index.js';

// Circle's devnet USDC mint, which the definition gives localnet too: the ledger installs a mint there.
const USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const adapter = configuredAdapter(solChain, { testNetworks: { sol: 'localnet' } });

interface Fixture {
  ledger: LiteSvmLedger;
  watcher: ChainWatcher;
  merchant: string;
  payer: KeyPairSigner;
  mintAuthority: KeyPairSigner;
  watched: (references?: string[]) => WatchedAddresses;
}

async function fixture(): Promise<Fixture> {
  const ledger = await LiteSvmLedger.start();
  const network = adapter.definition.networks.testnets[0];
  const providers = new ProviderPool({ chain: 'sol', network: network.id, endpoints: [{ name: 'litesvm', url: ledger.url }], timeoutMs: 10_000 });
  const merchant = (await generateKeyPairSigner()).address;
  const payer = await fundedSigner(ledger);
  const mintAuthority = await fundedSigner(ledger);
  installMint(ledger, USDC, mintAuthority.address, 6);
  await mintTo(ledger, mintAuthority, USDC, payer.address, 1_000_000_000n);
  ledger.finalize();
  return {
    ledger,
    watcher: adapter.createWatcher({ network, providers }),
    merchant,
    payer,
    mintAuthority,
    watched: (references = []) => ({ ...watchedSet([merchant]), references: async () => references }),
  };
}

const reference = () => adapter.newPaymentReference!();

test('SOL and USDC payments with references: confirmed in the mempool, then finalized in their slots', async (t) => {
  const { ledger, watcher, merchant, payer, watched } = await fixture();
  t.teardown(() => ledger.close());
  t.is(watcher.coverage, 'touched');
  const [solRef, usdcRef] = [reference(), reference()];
  const start = (await watcher.head()).height + 1;
  const solSig = ledger.send(await solPayment(ledger, payer, merchant, 1_250_000_000n, [solRef]));
  const usdcSig = ledger.send(await tokenPayment(ledger, payer, USDC, merchant, 12_340_000n, 6, [usdcRef]));

  // Confirmed, not finalized: detection, no block yet.
  const pending = await watcher.mempool!(watched([solRef, usdcRef]));
  t.deepEqual(
    pending.map((p) => [p.txHash, p.coin, p.amountUnits, p.toAddress, p.references, p.blockHeight]).sort(),
    [
      [solSig, 'sol', 1_250_000_000n, merchant, [solRef], null],
      [usdcSig, 'usdc_sol', 12_340_000n, merchant, [usdcRef], null],
    ].sort(),
  );
  t.is(pending.find((p) => p.coin === 'usdc_sol')!.fromAddress, payer.address);
  const unfinalized = await watcher.head();
  t.deepEqual(await watcher.scan(start, unfinalized.height, watched([solRef, usdcRef])), [], 'nothing finalized yet');

  ledger.finalize();
  const head = await watcher.head();
  t.is(head.height, ledger.confirmedSlot);
  t.is(head.finalized, head.height);
  t.deepEqual(await watcher.mempool!(watched([solRef, usdcRef])), [], 'finalized transactions leave the mempool');
  const blocks = await watcher.scan(start, head.height, watched([solRef, usdcRef]));
  t.is(blocks.length, 2, 'one block per touched slot');
  const [solBlock, usdcBlock] = blocks;
  t.true(solBlock!.height < usdcBlock!.height);
  t.is(await watcher.blockHash(solBlock!.height), solBlock!.hash);
  t.is(usdcBlock!.parentHash, solBlock!.hash, 'consecutive slots chain');
  t.like(solBlock!.transfers[0], {
    chain: 'sol',
    network: 'localnet',
    coin: 'sol',
    txHash: solSig,
    outputIndex: 0,
    toAddress: merchant,
    fromAddress: payer.address,
    amountUnits: 1_250_000_000n,
    blockHeight: solBlock!.height,
    blockHash: solBlock!.hash,
  });
  t.deepEqual(solBlock!.transfers[0]!.references, [solRef]);
  // The wallet created the merchant's token account first (instruction 0): the transfer is instruction 1.
  t.like(usdcBlock!.transfers[0], {
    coin: 'usdc_sol',
    txHash: usdcSig,
    outputIndex: 256,
    toAddress: merchant,
    amountUnits: 12_340_000n,
    blockHeight: usdcBlock!.height,
  });
  t.deepEqual(usdcBlock!.transfers[0]!.references, [usdcRef]);
  // The quorum's look-up of one transaction.
  const found = await watcher.transactionIn!(usdcSig, usdcBlock!.hash, watched());
  t.is(found?.height, usdcBlock!.height);
  t.is(found?.transfers[0]?.amountUnits, 12_340_000n);
  t.is(await watcher.transactionIn!('1'.repeat(64), usdcBlock!.hash, watched()), null);
  // A range past the payments holds nothing.
  t.deepEqual(await watcher.scan(head.height + 1, head.height + 10, watched([solRef, usdcRef])), []);
});

test('a payment without a reference is reported without references; found through the merchant address and its token account', async (t) => {
  const { ledger, watcher, merchant, payer, watched } = await fixture();
  t.teardown(() => ledger.close());
  const start = (await watcher.head()).height + 1;
  const solSig = ledger.send(await solPayment(ledger, payer, merchant, 5_000_000n));
  const usdcSig = ledger.send(await tokenPayment(ledger, payer, USDC, merchant, 7_000_000n, 6));
  ledger.finalize();
  const blocks = await watcher.scan(start, (await watcher.head()).height, watched());
  const transfers = blocks.flatMap((b) => b.transfers);
  t.deepEqual(
    transfers.map((x) => [x.txHash, x.coin, x.amountUnits]),
    [
      [solSig, 'sol', 5_000_000n],
      [usdcSig, 'usdc_sol', 7_000_000n],
    ],
  );
  t.true(transfers.every((x) => x.references === undefined));
});

test('a payment of another mint, or of the right mint to an account the merchant does not own, pays nothing', async (t) => {
  const { ledger, watcher, merchant, payer, mintAuthority, watched } = await fixture();
  t.teardown(() => ledger.close());
  const ref = reference();
  // Another mint with USDC's decimals, into the merchant's own associated account of it.
  const fake = (await generateKeyPairSigner()).address;
  installMint(ledger, fake, mintAuthority.address, 6);
  await mintTo(ledger, mintAuthority, fake, payer.address, 50_000_000n);
  const start = (await watcher.head()).height + 1;
  const fakeSig = ledger.send(await tokenPayment(ledger, payer, fake, merchant, 10_000_000n, 6, [ref]));
  // The right mint, the invoice's reference, but to a stranger's token account.
  const stranger = (await generateKeyPairSigner()).address;
  const strangerAta = await createAta(ledger, payer, USDC, stranger);
  const strangerSig = ledger.send(await tokenPayment(ledger, payer, USDC, merchant, 10_000_000n, 6, [ref], strangerAta));
  // A failed transfer (more SOL than the payer has) moves nothing either.
  const failedSig = ledger.send(await solPayment(ledger, payer, merchant, 1_000n * LAMPORTS_PER_SOL, [ref]));
  ledger.finalize();
  const head = (await watcher.head()).height;
  t.deepEqual(await watcher.scan(start, head, watched([ref])), []);
  // The watcher did read them (through the reference) and refused them: the stranger's is reported
  // once the stranger is watched, to the stranger, never the merchant.
  const strangerWatched = { ...watchedSet([merchant, stranger]), references: async () => [ref] };
  const reported = (await watcher.scan(start, head, strangerWatched)).flatMap((b) => b.transfers);
  t.deepEqual(
    reported.map((x) => [x.txHash, x.toAddress, x.coin]),
    [[strangerSig, stranger, 'usdc_sol']],
  );
  t.false([fakeSig, failedSig].some((sig) => reported.some((x) => x.txHash === sig)));
  t.is((await ata(stranger, USDC)).toString(), strangerAta.toString());
});

test('a confirmed payment on a fork that dies vanishes from the mempool and never reaches a block', async (t) => {
  const { ledger, watcher, merchant, payer, watched } = await fixture();
  t.teardown(() => ledger.close());
  const ref = reference();
  const start = (await watcher.head()).height + 1;
  const forkSig = ledger.sendOnFork(await solPayment(ledger, payer, merchant, 2n * LAMPORTS_PER_SOL, [ref]));
  const seen = await watcher.mempool!(watched([ref]));
  t.deepEqual(
    seen.map((p) => [p.txHash, p.blockHeight]),
    [[forkSig, null]],
  );
  ledger.finalize();
  t.deepEqual(await watcher.scan(start, (await watcher.head()).height, watched([ref])), [], 'a fork is never finalized');
  const forkSlot = ledger.confirmedSlot;
  ledger.dropFork();
  t.deepEqual(await watcher.mempool!(watched([ref])), [], 'the fork died');
  // The chain goes on without it: its slot was skipped.
  const laterSig = ledger.send(await solPayment(ledger, payer, merchant, 3n * LAMPORTS_PER_SOL, [ref]));
  ledger.finalize();
  t.is(await watcher.blockHash(forkSlot), null, 'a skipped slot has no block');
  const blocks = await watcher.scan(start, (await watcher.head()).height, watched([ref]));
  t.deepEqual(
    blocks.flatMap((b) => b.transfers.map((x) => [x.txHash, x.amountUnits])),
    [[laterSig, 3n * LAMPORTS_PER_SOL]],
  );
  // The state went back: the payer paid 3 SOL and two fees, not 5 SOL.
  t.true(ledger.svm.getBalance(payer.address)! > 6n * LAMPORTS_PER_SOL);
});
