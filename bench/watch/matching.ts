/**
 * Benchmark: matching throughput of the EVM watcher pipeline for one block of `--transfers` real
 * transfers (default 5,000) against `--watched` pool addresses (default 1,000,000).
 *
 * Set-up (not measured): a real anvil node with Sepolia's chain id; a testnet project with a
 * verified eth wallet whose pool holds `--transfers` derived addresses, each allocated to a
 * pending invoice created over the signed REST API; the pool then grows to `--watched` rows with
 * synthetic addresses written straight into the address pool's table (deriving a million
 * addresses would take half an hour; the lookup only needs the rows). With mining paused, one
 * transfer of the invoice's exact amount is sent to every invoice address, then one block mines
 * them all.
 *
 * Measured, in the same run and on the same block:
 * - provider: `EvmWatcher.scan` of the block with a filter that accepts every address (JSON-RPC:
 *   the block with its transactions, the logs, a receipt per candidate): the floor no matcher can
 *   go below;
 * - filter: the pool lookup of the block's recipients among the watched addresses;
 * - matching: one `ChainScanner.pass` over the block (filter, recording and matching every
 *   transfer, a `detected` transition with its outbox event per invoice, confirmation counting),
 *   in one transaction, as the scheduled job runs it, with the block's scan answered from the
 *   provider's answer above, and the head and block hashes it asks for from answers read just before (the scanner's own lookup still decides what is kept): pass minus
 *   provider, measured directly rather than as the difference of two noisy figures. The run checks that every invoice is
 * `detected` afterwards. With `--paying none` the block's transfers go to addresses nobody watches
 * (the cost of a busy block that pays nothing: pass - provider is the lookup alone).
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx -y pnpm@10.34.9 exec tsx bench/watch/matching.ts [--transfers 5000] [--watched 1000000] [--paying all|none] [--passes 1]
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { CLI_ACTOR, fromBaseUnits, sql, sqlIdentifier, sqlQuery } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { FIXED_ETH_RATE, startBenchTestKernel } from '../bench-kernel.js';
import { Anvil, projectWithPools } from '@gw/testing';
import { randomBytes } from 'node:crypto';
import { getAddress, toBeHex } from 'ethers';
import { benchPostgres } from '../bench-database.js';
import { processCpuMs } from '../measure.js';
import { benchOptions } from '../bench-options.js';

const values = benchOptions({ transfers: 5000, watched: 1_000_000, paying: 'all', passes: 1 });
const passes = Math.max(1, values.passes);
const transfers = values.transfers;
const paying = values.paying === 'none' ? 'none' : 'all';
const watchedCount = values.watched;
const SEPOLIA = 11155111;

const postgres = await benchPostgres();
const anvil = await Anvil.start(SEPOLIA, { gasLimit: 30_000_000_000n, accounts: 20 });

const ms = (from: number) => performance.now() - from;

try {
  await postgres.withDatabase(async (url) => {
    const gw: TestKernel = await startBenchTestKernel(url, 'gateway', {
      ...FIXED_ETH_RATE,
      'plugins.address-pool.targetFree': Math.min(10_000, transfers),
      'plugins.address-pool.replenishBatchMax': Math.min(10_000, transfers),
      'plugins.invoices.createRateLimitPerMinute': 1_000_000,
      'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'anvil', url: anvil.url }], startHeight: 0 } } },
      // A block of thousands of transactions and their receipts takes anvil a while on a busy machine.
      'plugins.watchers.providerTimeoutMs': 120_000,
    });
    try {
      const { db, tenancyOperators, watchersRegistry, watchersScanner } = gw.kernel.cradle;
      const operatorId = (await tenancyOperators.create('bench-watch', CLI_ACTOR)).id;
      let t0 = performance.now();
      const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
      console.error(`pool of ${transfers} derived addresses: ${(ms(t0) / 1000).toFixed(1)} s`);

      // Pending invoices over REST, 50 at a time, each with its own address and a distinct amount.
      t0 = performance.now();
      const invoices: { id: string; address: string; units: bigint }[] = [];
      for (let done = 0; done < transfers; done += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, transfers - done) }, async (_, i) => {
            const units = 10n ** 15n + BigInt(done + i);
            const res = await signedFetch(gw.url, '/api/v1/invoices', {
              ...project,
              method: 'POST',
              body: { external_id: `bench-${done + i}`, coin: 'eth', amount_crypto: fromBaseUnits(units, 18) },
            });
            if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
            return { id: res.body.id as string, address: res.body.address as string, units };
          }),
        );
        invoices.push(...batch);
      }
      if (new Set(invoices.map((i) => i.address)).size !== transfers) throw new Error('invoices share addresses: raise the pool');
      console.error(`${transfers} invoices: ${(ms(t0) / 1000).toFixed(1)} s`);

      // The rest of the watched set: synthetic rows of the same wallet, far above the derived indices.
      t0 = performance.now();
      const wallet = await db('address_pool_addresses').where({ project_id: project.projectId, chain: 'eth' }).first('wallet_id');
      const extra = Math.max(0, watchedCount - transfers);
      for (let from = 0; from < extra; from += 100_000) {
        const n = Math.min(100_000, extra - from);
        await db.raw(
          `insert into address_pool_addresses (id, project_id, chain, wallet_id, derivation_index, address, derivation_path, state, activated)
           select upper(substr(md5('id' || i), 1, 26)), ?, 'eth', ?, 1000000 + i, '0x' || substr(md5('a' || i) || md5('b' || i), 1, 40), 'm/44''/60''/0''/0/' || (1000000 + i), 'available', true
             from generate_series(?::int, ?::int) as i`,
          [project.projectId, wallet.wallet_id, from, from + n - 1],
        );
      }
      await db.raw('analyze address_pool_addresses');
      const total = Number((await db('address_pool_addresses').where({ chain: 'eth' }).count({ n: '*' }))[0]!.n);
      console.error(`${total} watched eth addresses: ${(ms(t0) / 1000).toFixed(1)} s`);

      // One block holding a payment to every invoice: mining paused, transactions spread over the dev accounts.
      t0 = performance.now();
      const accounts = await anvil.accounts();
      await anvil.pauseMining();
      // Explicit nonces: anvil numbers a batch from the mined state, not from the pending pool.
      const nonces = (await anvil.rpcBatch<string>(accounts.map((a) => ['eth_getTransactionCount', [a, 'latest']] as const))).map((n) => Number(BigInt(n)));
      for (let done = 0; done < transfers; done += 500) {
        await anvil.rpcBatch(
          invoices.slice(done, done + 500).map((inv, i) => {
            const sender = (done + i) % accounts.length;
            const nonce = nonces[sender]!++;
            // `--paying none`: the same block, to addresses no pool holds.
            const to = paying === 'all' ? inv.address : getAddress(`0x${randomBytes(20).toString('hex')}`);
            return ['eth_sendTransaction', [{ from: accounts[sender], to, value: toBeHex(inv.units), gas: '0x5208', nonce: toBeHex(nonce) }]] as const;
          }),
        );
      }
      await anvil.rpc('evm_mine', []);
      await anvil.resumeMining();
      const height = await anvil.blockNumber();
      const block = await anvil.rpc<{ transactions: string[] }>('eth_getBlockByNumber', [toBeHex(height), false]);
      if (block.transactions.length !== transfers) throw new Error(`the block holds ${block.transactions.length} transactions, not ${transfers}`);
      console.error(`block ${height} with ${transfers} transfers: ${(ms(t0) / 1000).toFixed(1)} s`);

      const target = watchersRegistry.get('eth', 'sepolia')!;
      // The scanner starts just below the block (earlier blocks hold only the set-up).
      await db('watchers_cursors').insert({ chain: 'eth', network: 'sepolia', height: height - 1, head_height: height - 1 });
      await db('watchers_blocks').insert({
        chain: 'eth',
        network: 'sepolia',
        height: height - 1,
        hash: (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [toBeHex(height - 1), false])).hash,
        parent_hash: '0x',
      });

      // The provider's floor: the scan with a filter that answers what the pool lookup answers, without the lookup.
      const knownAnswer = { filter: async (addresses: readonly string[]) => new Set(paying === 'all' ? addresses : []), active: async () => [] };
      t0 = performance.now();
      const [scanned] = await target.watcher.scan(height, height, knownAnswer);
      const providerMs = ms(t0);
      if (scanned!.transfers.length !== (paying === 'all' ? transfers : 0)) throw new Error(`the watcher saw ${scanned!.transfers.length} transfers`);
      const recipients = (await anvil.rpc<{ transactions: { to: string }[] }>('eth_getBlockByNumber', [toBeHex(height), true])).transactions.map((tx) =>
        getAddress(tx.to),
      );

      t0 = performance.now();
      const found = await target.watched.filter(recipients);
      const filterMs = ms(t0);
      const expected = paying === 'all' ? transfers : 0;
      if (found.size !== expected) throw new Error(`the filter found ${found.size}, expected ${expected}`);

      // The pass, with the block's scan answered from the provider's answer above: the scanner's
      // own lookup still decides which transfers are kept, so everything but the JSON-RPC reads
      // is measured directly (pass minus provider, without subtracting two noisy figures).
      const replayedScan = async (from: number, to: number, watched: { filter(addresses: readonly string[]): Promise<ReadonlySet<string>> }) => {
        if (from !== height || to !== height) return target.watcher.scan(from, to, watched as never);
        const hits = await watched.filter(recipients);
        return [{ ...scanned!, transfers: scanned!.transfers.filter((transfer) => hits.has(transfer.toAddress)) }];
      };
      // The head and the block hashes the pass asks the provider for, answered as the provider
      // answered them just before: provider round trips are the provider's time, not matching's.
      const answeredHead = await target.watcher.head();
      const answeredHashes = new Map<number, string | null>();
      for (const at of [height - 1, height]) answeredHashes.set(at, await target.watcher.blockHash(at));
      const replayedBlockHash = async (at: number) => (answeredHashes.has(at) ? answeredHashes.get(at)! : target.watcher.blockHash(at));
      const replayed = new Proxy(target.watcher, {
        get(watcher, name) {
          if (name === 'scan') return replayedScan;
          if (name === 'head') return async () => answeredHead;
          if (name === 'blockHash') return replayedBlockHash;
          const value = Reflect.get(watcher, name, watcher);
          return typeof value === 'function' ? value.bind(watcher) : value;
        },
      });

      // Diagnostics: BENCH_COUNT_QUERIES=1 prints how often each statement shape ran in the pass and its total time.
      const statements = new Map<string, { count: number; ms: number }>();
      const started = new Map<string, { shape: string; at: number }>();
      const countQuery = (query: { sql: string; __knexQueryUid: string }) => {
        const shape = query.sql.replace(/\s+/g, ' ').slice(0, 110);
        const entry = statements.get(shape) ?? { count: 0, ms: 0 };
        entry.count++;
        statements.set(shape, entry);
        started.set(query.__knexQueryUid, { shape, at: performance.now() });
      };
      const timeQuery = (_response: unknown, query: { __knexQueryUid: string }) => {
        const start = started.get(query.__knexQueryUid);
        if (start) statements.get(start.shape)!.ms += performance.now() - start.at;
      };
      if (process.env['BENCH_COUNT_QUERIES']) db.on('query', countQuery).on('query-response', timeQuery);
      // Diagnostics: BENCH_PROFILE=<file> writes a CPU profile of the pass (open it in Chrome's DevTools).
      const profiler = process.env['BENCH_PROFILE'] ? new Session() : undefined;
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      // CPU time as well as wall time: on a shared machine the wall time of the same pass varies
      // several-fold with the other work, the CPU it takes much less.
      const backends = async () =>
        ((await db.raw(`select pid from pg_stat_activity where datname = current_database()`)).rows as { pid: number }[]).map((r) => r.pid);
      // `--passes N`: the same pass N times, the database put back as it was before each (the
      // invoices' lifecycle columns, the cursor and blocks; the pass's transfers, transactions,
      // events and audit rows deleted; then VACUUM ANALYZE), for a median of one set-up.
      const invoiceColumns = ['id', 'status', 'event_counts', 'updated_at', 'address_released_at', 'paid_at', 'paid_usd_rate', 'paid_rate_source'];
      const invoicesBefore = await db('invoices_invoices').where({ project_id: project.projectId }).select(invoiceColumns);
      const cursorBefore = await db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).first();
      const blocksBefore = await db('watchers_blocks').where({ chain: 'eth', network: 'sepolia' }).select();
      const lastAudit = (await db('kernel_audit_log').max({ id: 'id' }))[0]!.id as string;
      const lastEvent = ((await db('webhooks_events').max({ id: 'id' }))[0]!.id as string | null) ?? '';
      const putBack = async () => {
        await db.transaction(async (trx) => {
          await trx('watchers_transfers').where({ chain: 'eth', network: 'sepolia' }).delete();
          await trx('invoices_transactions').where({ project_id: project.projectId }).delete();
          await trx('webhooks_events').where('id', '>', lastEvent).delete();
          await trx('kernel_audit_log').where('id', '>', lastAudit).delete();
          await trx.raw(
            `update invoices_invoices i set status = b.status, event_counts = b.event_counts, updated_at = b.updated_at, address_released_at = b.address_released_at,
                    paid_at = b.paid_at, paid_usd_rate = b.paid_usd_rate, paid_rate_source = b.paid_rate_source
               from json_populate_recordset(null::invoices_invoices, ?::json) b where i.id = b.id`,
            [JSON.stringify(invoicesBefore)],
          );
          await trx('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).update(cursorBefore);
          await trx('watchers_blocks').where({ chain: 'eth', network: 'sepolia' }).delete();
          await trx('watchers_blocks').insert(blocksBefore);
        });
        for (const table of [
          'watchers_transfers',
          'invoices_transactions',
          'webhooks_events',
          'kernel_audit_log',
          'invoices_invoices',
          'watchers_cursors',
          'watchers_blocks',
        ])
          await sqlQuery(db, sql`vacuum analyze ${sqlIdentifier(table)}`);
      };
      const runs: { matchingMs: number; nodeCpuMs: number; postgresCpuMs: number }[] = [];
      let report: Awaited<ReturnType<typeof watchersScanner.pass>> | undefined;
      let detected = 0;
      for (let pass = 0; pass < passes; pass++) {
        if (pass > 0) await putBack();
        const backendsBefore = new Map((await backends()).map((pid) => [pid, processCpuMs(pid)]));
        const cpuBefore = process.cpuUsage();
        t0 = performance.now();
        report = await watchersScanner.pass({ ...target, watcher: replayed });
        const matchingMs = ms(t0);
        const cpu = process.cpuUsage(cpuBefore);
        const postgresCpuMs = (await backends()).reduce((sum, pid) => sum + processCpuMs(pid) - (backendsBefore.get(pid) ?? 0), 0);
        runs.push({ matchingMs, nodeCpuMs: (cpu.user + cpu.system) / 1000, postgresCpuMs });
        if (report.error || report.transfers !== expected) throw new Error(`pass: ${JSON.stringify(report)}`);
        detected = Number((await db('invoices_invoices').where({ project_id: project.projectId, status: 'detected' }).count({ n: '*' }))[0]!.n);
        if (detected !== expected) throw new Error(`${detected} invoices detected, not ${expected}`);
        if (passes > 1)
          console.error(
            `pass ${pass + 1}: ${matchingMs.toFixed(0)} ms, CPU ${(runs[pass]!.nodeCpuMs + postgresCpuMs).toFixed(0)} (${runs[pass]!.nodeCpuMs.toFixed(0)} + ${postgresCpuMs.toFixed(0)})`,
          );
      }
      // Medians over the passes: the wall time's, and the CPU of the pass with the median CPU time.
      const matchingMs = [...runs].sort((a, b) => a.matchingMs - b.matchingMs)[Math.floor(runs.length / 2)]!.matchingMs;
      const { nodeCpuMs, postgresCpuMs } = [...runs].sort((a, b) => a.nodeCpuMs + a.postgresCpuMs - (b.nodeCpuMs + b.postgresCpuMs))[
        Math.floor(runs.length / 2)
      ]!;
      db.off('query', countQuery).off('query-response', timeQuery);
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(process.env['BENCH_PROFILE']!, JSON.stringify(profile));
        profiler.disconnect();
      }
      for (const [shape, { count, ms: spent }] of [...statements].sort((a, b) => b[1].ms - a[1].ms))
        console.error(String(count).padStart(8), spent.toFixed(0).padStart(7), 'ms', shape);

      console.log(
        `\nwatcher matching, one block of ${transfers} transfers (${paying === 'all' ? 'each paying its own invoice' : 'paying nothing'}) against ${total} watched addresses, node ${process.version}${passes > 1 ? `, medians of ${passes} passes` : ''}\n`,
      );
      console.log('| step | ms | transfers/s |');
      console.log('| --- | --- | --- |');
      console.log(
        `| provider: EvmWatcher.scan of the block, filter answered without a lookup | ${providerMs.toFixed(0)} | ${Math.round(transfers / (providerMs / 1000))} |`,
      );
      console.log(`| filter: pool lookup of the ${transfers} recipients | ${filterMs.toFixed(0)} | ${Math.round(transfers / (filterMs / 1000))} |`);
      console.log(
        `| matching alone: the pass (lookup, record, match, detect ${detected} invoices, count) with the block's scan replayed | ${matchingMs.toFixed(0)} | ${Math.round(transfers / (matchingMs / 1000))} |`,
      );
      console.log(
        `| matching alone, CPU: this process (Node) + its PostgreSQL backends | ${(nodeCpuMs + postgresCpuMs).toFixed(0)} (${nodeCpuMs.toFixed(0)} + ${postgresCpuMs.toFixed(0)}) | |`,
      );
      console.log(
        `| pass, provider included (provider + matching) | ${(providerMs + matchingMs).toFixed(0)} | ${Math.round(transfers / ((providerMs + matchingMs) / 1000))} |`,
      );
    } finally {
      await gw.close();
    }
  });
} finally {
  await anvil.stop();
  await postgres.stop();
}
