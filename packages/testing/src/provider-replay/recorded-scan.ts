import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../processes.js';
import type { ReplayHandler } from '@gw/kernel/testing';

/** The APIs the default public providers speak, one replay each. */
export type ProviderApi = 'esplora' | 'evm-json-rpc' | 'java-tron' | 'toncenter-v3' | 'koios';

/** A transfer a scan of the recorded block must report. */
export interface ExpectedTransfer {
  readonly coin: string;
  readonly txHash: string;
  readonly outputIndex: number;
  readonly toAddress: string;
  readonly amountUnits: bigint;
  readonly memo?: string;
}

/** What a replay holds for a watcher to read: the tip it reports and one recorded block to scan. */
export interface RecordedScan {
  /** The height `head()` reports through the replay. */
  readonly headHeight: number;
  /** The recorded block a test scans (`scan(height, height)`). */
  readonly height: number;
  /** Its hash as the watcher reports it. */
  readonly hash: string;
  /** The addresses to watch while scanning it (receivers of `transfers`). */
  readonly watched: readonly string[];
  /** What the scan reports at `watched`, in the watcher's order. */
  readonly transfers: readonly ExpectedTransfer[];
}

/** One provider's replay: its API, the handler of its requests and what a watcher can read through it. */
export interface ProviderReplay {
  readonly api: ProviderApi;
  readonly handler: ReplayHandler;
  readonly scan: RecordedScan;
  /** Which recordings it serves, in a few words, for test titles and the bench's table (`mainnet block 16057407 (hypersync test data)`). */
  readonly recordings: string;
}

/** The text of a chain's test fixture (`chains/<chain>/test/fixtures/<path>`); each folder's README says where it came from. */
export function fixtureText(chain: string, path: string): string {
  return readFileSync(join(ROOT, 'chains', chain, 'test', 'fixtures', path), 'utf8');
}

/** A chain's JSON test fixture, parsed. */
export function fixtureJson<T = unknown>(chain: string, path: string): T {
  return JSON.parse(fixtureText(chain, path)) as T;
}
