import { Gauge, type Registry } from 'prom-client';

/**
 * A gauge labelled by chain and network, set afresh at each scrape from `rows` (read then, so every
 * process reports the database's truth; undefined when the read failed: no series). A row whose
 * `value` is undefined has no series either.
 */
export function networkGauge<R extends { readonly chain: string; readonly network: string }>(
  registry: Registry,
  name: string,
  help: string,
  rows: () => Promise<readonly R[] | undefined>,
  value: (row: R) => number | undefined,
): Gauge<'chain' | 'network'> {
  return new Gauge({
    name,
    help,
    labelNames: ['chain', 'network'],
    registers: [registry],
    async collect() {
      const read = await rows();
      this.reset();
      for (const row of read ?? []) {
        const v = value(row);
        if (v !== undefined) this.set({ chain: row.chain, network: row.network }, v);
      }
    },
  });
}
