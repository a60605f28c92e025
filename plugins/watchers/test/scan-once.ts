import type { TestKernel } from '@gw/kernel/testing';
import type { ScanReport } from '../src/index.js';

/** One completed scan pass of a network's watcher (another pass holding the lock: again; a failed pass throws). */
export async function scanOnce(gw: TestKernel, chain: string, network: string): Promise<ScanReport> {
  const target = gw.kernel.cradle.watchersRegistry.get(chain, network)!;
  for (;;) {
    const report = await gw.kernel.cradle.watchersScanner.pass(target);
    if (report.error) throw new Error(report.error);
    if (report.ran) return report;
  }
}
