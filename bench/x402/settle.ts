/**
 * Benchmark (issue 41, "Figures"): x402 payments of invoices settled by the gateway's own gas
 * wallet on anvil (automine: a transaction is mined when sent), the payer the official client.
 *
 * 1. Latency: `--payments` invoices paid one after the other by `@x402/fetch` (a viem account),
 *    each a fresh invoice's checkout URL. Timed: the client's paid request (the retry carrying
 *    `PAYMENT-SIGNATURE`) to its 200 answer, which is the gateway's verification (chain reads,
 *    simulation), the settlement row, the gas wallet's nonce under its lock, signing, sending and
 *    the receipt; and the whole exchange (402, signature, paid request) beside it. p50, p99, max.
 * 2. Throughput: for each `--concurrency` level, `--throughput-payments` more invoices whose
 *    payments are signed beforehand, sent by that many clients at once: settlements per second of
 *    the one gas wallet, then its nonces in the blocks of the run, which must be consecutive, as
 *    many as the settlements, none left pending.
 *
 * One process: the gateway (the x402 plugin's harness: anvil with the EIP-3009 test token as
 * eth/anvil, a real PostgreSQL database) and the clients share it.
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node_modules/.bin/node --import tsx bench/x402/settle.ts [--payments 200] [--concurrency 8,16] [--throughput-payments 200]
 */
import { cpus, loadavg } from 'node:os';
import { CLI_ACTOR } from '@gw/kernel';
import { startX402, USDC, type X402Harness } from '@gw/plugin-x402/testing';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { getAddress, toBeHex, type Wallet } from 'ethers';
import { privateKeyToAccount } from 'viem/accounts';
import { benchOptions } from '../bench-options.js';
import { percentile } from '../measure.js';

const options = benchOptions({ payments: 200, concurrency: '8,16', 'throughput-payments': 200 });
const levels = options.concurrency.split(',').map(Number);
const invoicesNeeded = options.payments + levels.length * options['throughput-payments'];

/** The payer's x402 client: `exact` on anvil with a viem account, spend controls opened to the test token. */
function clientOf(h: X402Harness, payer: Wallet): x402Client {
  return new x402Client()
    .register('eip155:31337', new ExactEvmScheme(privateKeyToAccount(payer.privateKey as `0x${string}`)))
    .setSpendControls({ allowedAssets: [{ network: 'eip155:31337', asset: getAddress(h.usdc) }] });
}

/** Fresh invoices of 1 USDC (the invoices service, not the rate-limited API), their checkout URLs. */
async function checkoutUrls(h: X402Harness, count: number): Promise<string[]> {
  const principal = await h.principal();
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const { invoice } = await h.gw.kernel.cradle.invoicesService.create(
      principal,
      { external_id: `bench-${i}-${Math.random().toString(36).slice(2)}`, coin: 'usdc', amount_crypto: '1' },
      CLI_ACTOR,
    );
    urls.push(invoice.checkout_url);
  }
  return urls;
}

/** The gas wallet's nonces in blocks `from`..latest, ascending. */
async function gasWalletNonces(h: X402Harness, from: number): Promise<bigint[]> {
  const latest = await h.chain.anvil.blockNumber();
  const nonces: bigint[] = [];
  for (let start = from; start <= latest; start += 100) {
    const numbers = Array.from({ length: Math.min(100, latest - start + 1) }, (_, i) => start + i);
    const blocks = await h.chain.anvil.rpcBatch<{ transactions: { from: string; nonce: string }[] }>(
      numbers.map((n) => ['eth_getBlockByNumber', [toBeHex(n), true]] as const),
    );
    for (const block of blocks) for (const tx of block.transactions) if (getAddress(tx.from) === h.gasWallet.address) nonces.push(BigInt(tx.nonce));
  }
  return nonces.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    p50_ms: +percentile(sorted, 50).toFixed(1),
    p90_ms: +percentile(sorted, 90).toFixed(1),
    p99_ms: +percentile(sorted, 99).toFixed(1),
    max_ms: +sorted.at(-1)!.toFixed(1),
    // A settlement whose first receipt read came before the block waited one receipt poll more (250 ms up to e766e44c; now 25 ms, doubling to 250).
    over_250_ms: sorted.filter((m) => m > 250).length,
  };
};

const h = await startX402({
  poolSize: invoicesNeeded + 10,
  gasFunds: 10n ** 21n,
  gasCaps: { maxPerSettlementUnits: (10n ** 17n).toString(), maxPerDayUnits: (10n ** 21n).toString() },
});
try {
  const urls = await checkoutUrls(h, invoicesNeeded);

  // 1. Latency, one payment at a time, with @x402/fetch.
  const payer = await h.payer(BigInt(invoicesNeeded) * USDC);
  const paid: number[] = [];
  const whole: number[] = [];
  const timedFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const started = performance.now();
    const response = await fetch(request);
    if (request.headers.has('payment-signature')) paid.push(performance.now() - started);
    return response;
  };
  const pay = wrapFetchWithPayment(timedFetch, clientOf(h, payer));
  for (const url of urls.slice(0, options.payments)) {
    const started = performance.now();
    const response = await pay(url);
    if (response.status !== 200) throw new Error(`payment of ${url}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    whole.push(performance.now() - started);
  }

  // 2. Throughput of the one gas wallet, payments signed beforehand.
  const throughput = [];
  let next = options.payments;
  for (const concurrency of levels) {
    const batch = urls.slice(next, next + options['throughput-payments']);
    next += batch.length;
    const payers = await Promise.all(Array.from({ length: concurrency }, () => h.payer(BigInt(batch.length) * USDC)));
    const signed: { url: string; headers: Record<string, string> }[] = [];
    for (const [i, url] of batch.entries()) {
      const client = new x402HTTPClient(clientOf(h, payers[i % concurrency]!));
      const asked = await fetch(url, { headers: { accept: 'application/json' } });
      await asked.arrayBuffer();
      const payload = await client.createPaymentPayload(decodePaymentRequiredHeader(asked.headers.get('payment-required')!));
      signed.push({ url, headers: { accept: 'application/json', ...client.encodePaymentSignatureHeader(payload) } });
    }
    const firstBlock = (await h.chain.anvil.blockNumber()) + 1;
    const nonceBefore = BigInt(await h.chain.anvil.rpc<string>('eth_getTransactionCount', [h.gasWallet.address, 'latest']));
    let taken = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (taken < signed.length) {
          const { url, headers } = signed[taken++]!;
          const response = await fetch(url, { headers });
          const settled = response.headers.get('payment-response');
          if (response.status !== 200 || !settled || !decodePaymentResponseHeader(settled).success) failures++;
          await response.arrayBuffer();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const nonces = await gasWalletNonces(h, firstBlock);
    const latest = BigInt(await h.chain.anvil.rpc<string>('eth_getTransactionCount', [h.gasWallet.address, 'latest']));
    const pending = BigInt(await h.chain.anvil.rpc<string>('eth_getTransactionCount', [h.gasWallet.address, 'pending']));
    const consecutive = nonces.every((n, i) => n === nonceBefore + BigInt(i));
    throughput.push({
      concurrency,
      payments: signed.length,
      failures,
      seconds: +seconds.toFixed(2),
      settlements_per_second: +((signed.length - failures) / seconds).toFixed(1),
      gas_wallet_transactions: nonces.length,
      nonces_consecutive: consecutive && latest === nonceBefore + BigInt(nonces.length),
      pending_left: Number(pending - latest),
    });
  }

  console.log(
    JSON.stringify(
      {
        machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadavg_1m: +loadavg()[0]!.toFixed(2) },
        latency: { payments: options.payments, paid_request: summary(paid), whole_exchange: summary(whole) },
        throughput,
      },
      null,
      2,
    ),
  );
} finally {
  await h.stop();
}
