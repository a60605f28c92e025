/** Measuring helpers shared by the benchmarks. */
import { readdirSync, readFileSync } from 'node:fs';

/** The value at percentile `p` (0-100) of an ascending array; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Milliseconds per clock tick of /proc's counters (USER_HZ is 100 on Linux). */
export const TICK_MS = 10;

/** CPU time (user + system, ms) a process has used, read from /proc; 0 where /proc cannot tell. */
export function processCpuMs(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU time (ms) used by every process named `postgres` on the machine. */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processCpuMs(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}
