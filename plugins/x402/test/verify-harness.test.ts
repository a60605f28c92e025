import test from 'ava';
import { startX402, type X402Harness } from './helpers.js';

let h: X402Harness;
test.before(async () => {
  h = await startX402();
});
test.after.always(() => h?.stop());

test('the harness: a usdc invoice of the testnet project on eth/anvil, a funded payer and gas wallet', async (t) => {
  const invoice = await h.invoice('1.5');
  t.is(invoice.coin, 'usdc');
  t.is(invoice.amount_crypto_units, '1500000');
  t.regex(invoice.address, /^0x[0-9a-fA-F]{40}$/);
  const payer = await h.payer(5n * 10n ** 6n);
  t.is(await h.balanceOf(payer.address), 5_000_000n);
  t.true((await h.chain.ethBalance(h.gasWallet.address)) > 0n);
});
