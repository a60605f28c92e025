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
  readonly byKind: Record<string, number>;
  readonly failures: readonly FuzzFailure[];
}

export async function fuzz(world: FuzzWorld, options: { seed: number; cases: number; onCase?: (index: number, c: FuzzCase, problems: readonly string[]) => void }): Promise<FuzzReport> {
  const cases = fc.sample(caseArbitrary(world), { seed: options.seed, numRuns: options.cases });
  const failures: FuzzFailure[] = [];
  const byKind: Record<string, number> = {};
  let index = 0;
  for (const c of cases) {
    const key = c.kind === 'rest' ? `${c.method} ${c.path}` : c.kind === 'oauth' ? `oauth ${c.endpoint}` : 'mcp';
    byKind[key] = (byKind[key] ?? 0) + 1;
    let problems: string[];
    try {
      problems = await runCase(world, c);
    } catch (error) {
      problems = [`the case threw: ${(error as Error).stack ?? String(error)}`];
    }
    if (problems.length > 0) failures.push({ index, case: describeCase(c), problems });
    options.onCase?.(index, c, problems);
    index += 1;
  }
  return { seed: options.seed, tried: cases.length, byKind, failures };
}
