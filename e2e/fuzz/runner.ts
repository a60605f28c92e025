/**
 * Runs a fixed number of fuzz cases drawn with a fixed seed (fast-check's `sample`, so the same seed
 * draws the same cases) against a fuzz world, one after another, and collects every broken property.
 */
import fc from 'fast-check';
import { caseArbitrary, describeCase, runCase, type FuzzCase } from './cases.js';
import type { FuzzWorld } from './world.js';

export interface FuzzFailure {
  readonly index: number;
  readonly case: string;
  readonly problems: readonly string[];
}

export interface FuzzReport {
  readonly seed: number;
  readonly tried: number;
  /** Requests sent (a replay case sends two). */
  readonly requests: number;
  /** Cases by target: `METHOD /path` of the document, `oauth <endpoint>`, `mcp`. */
  readonly byTarget: Record<string, number>;
  /** Requests by status class and target kind, e.g. `rest 2xx`, `mcp 4xx`. */
  readonly byStatus: Record<string, number>;
  readonly failures: readonly FuzzFailure[];
}

export function targetOf(c: FuzzCase): string {
  return c.kind === 'rest' ? `${c.method} ${c.path}` : c.kind === 'oauth' ? `oauth ${c.endpoint}` : 'mcp';
}

export async function fuzz(
  world: FuzzWorld,
  options: { seed: number; cases: number; onCase?: (index: number, c: FuzzCase, problems: readonly string[], statuses: readonly number[]) => void },
): Promise<FuzzReport> {
  const cases = fc.sample(caseArbitrary(world), { seed: options.seed, numRuns: options.cases });
  const failures: FuzzFailure[] = [];
  const byTarget: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let requests = 0;
  let index = 0;
  for (const c of cases) {
    const target = targetOf(c);
    byTarget[target] = (byTarget[target] ?? 0) + 1;
    let problems: string[];
    let statuses: number[] = [];
    try {
      ({ problems, statuses } = await runCase(world, c));
    } catch (error) {
      problems = [`the case threw: ${(error as Error).stack ?? String(error)}`];
    }
    for (const status of statuses) {
      const key = `${c.kind} ${Math.floor(status / 100)}xx`;
      byStatus[key] = (byStatus[key] ?? 0) + 1;
    }
    requests += statuses.length;
    if (problems.length > 0) failures.push({ index, case: describeCase(c), problems });
    options.onCase?.(index, c, problems, statuses);
    index += 1;
  }
  return { seed: options.seed, tried: cases.length, requests, byTarget, byStatus, failures };
}
