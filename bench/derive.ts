/**
 * Address-derivation throughput per chain: parse one account key, derive N receive addresses,
 * print addresses/second. Run: npx pnpm exec tsx bench/derive.ts [N]
 * Keys are the public test-vector keys used by the chain tests (no private material).
 */
import { cpus } from 'node:os';
import type { ChainAdapterDeps, ChainModule, NetworkKind } from '@gw/kernel';
import { adaChain } from '../chains/ada/src/index.js';
import { bscChain } from '../chains/bsc/src/index.js';
import { btcChain } from '../chains/btc/src/index.js';
import { baseChain } from '../chains/base/src/index.js';
import { ethChain } from '../chains/eth/src/index.js';
import { ltcChain } from '../chains/ltc/src/index.js';
import { polygonChain } from '../chains/polygon/src/index.js';
import { tonChain } from '../chains/ton/src/index.js';
import { tronChain } from '../chains/tron/src/index.js';

const N = Number(process.argv[2] ?? 2000);
const deps = { logger: {} as ChainAdapterDeps['logger'] };

const EVM_XPUB = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
const cases: { module: ChainModule; key: string; network: NetworkKind; n: number }[] = [
  {
    module: btcChain,
    network: 'mainnet',
    n: N,
    key: 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
  },
  { module: ethChain, network: 'mainnet', n: N, key: EVM_XPUB },
  { module: polygonChain, network: 'mainnet', n: N, key: EVM_XPUB },
  { module: bscChain, network: 'mainnet', n: N, key: EVM_XPUB },
  {
    module: tronChain,
    network: 'mainnet',
    n: N,
    key: 'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd',
  },
  {
    module: adaChain,
    network: 'mainnet',
    n: N,
    key: 'beb7e770b3d0f1932b0a2f3a63285bf9ef7d3e461d55446d6a3911d8f0ee55c0b0e2df16538508046649d0e6d5b32969555a23f2f1ebf2db2819359b0d88bd16',
  },
  { module: tonChain, network: 'mainnet', n: Math.min(N, 32768), key: '5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522' },
  // The chains in the build that are off by default (`chains.enabled`).
  {
    module: ltcChain,
    network: 'mainnet',
    n: N,
    key: 'Ltub2ZANw57Fi4JfMGenngwfZMqDrsccTf2m3qEjvLuk8faGXB973sSqGttAdKBvGSCLG9DXh2yxaUB9qpwQUe2zCCtrZPhjxGuMAWqL6F7Xrpd',
  },
  { module: baseChain, network: 'mainnet', n: N, key: EVM_XPUB },
];

const rows: string[][] = [];
for (const { module, key, network, n } of cases) {
  const adapter = module.createAdapter(deps, module.definition);
  const parsed = adapter.parseAccountKey(key, network);
  adapter.deriveAddress(parsed, 0); // warm caches and JIT
  const start = process.hrtime.bigint();
  for (let i = 1; i <= n; i++) adapter.deriveAddress(parsed, i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  rows.push([module.definition.id, String(n), seconds.toFixed(2), Math.round(n / seconds).toString()]);
}

const header = ['chain', 'addresses', 'seconds', 'addresses/s'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
