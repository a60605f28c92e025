/**
 * docs/btcpay-compatibility.md's "Every supported call" is the plugin's routes: each route under the
 * Greenfield prefix has its row, each row is a route, and each is an operation of BTCPay's published
 * document (or its store-scoped form), unless its notes say it is not in the document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { startBtcpayKernel } from '@gw/plugin-btcpay/testing';
import { ROOT } from '@gw/testing';
import { GreenfieldValidator } from './greenfield-validator.js';

const NOT_IN_DOCUMENT = "not in BTCPay's published document";

interface Row {
  readonly method: string;
  readonly path: string;
  readonly notes: string;
}

/** The rows of the section's table: `| \`METHOD\` | \`/path\` | client | notes |`. */
function documentedCalls(): Row[] {
  const text = readFileSync(join(ROOT, 'docs', 'btcpay-compatibility.md'), 'utf8');
  const start = text.indexOf('\n## Every supported call\n');
  if (start < 0) throw new Error('docs/btcpay-compatibility.md has no "Every supported call" section');
  const end = text.indexOf('\n## ', start + 1);
  const rows: Row[] = [];
  for (const line of text.slice(start, end < 0 ? undefined : end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const method = /^`([A-Z]+)`$/.exec(cells[1] ?? '')?.[1];
    const path = /^`(\/[^`]*)`$/.exec(cells[2] ?? '')?.[1];
    if (method && path) rows.push({ method, path, notes: cells[4] ?? '' });
  }
  return rows;
}

let gw: TestKernel;
test.before(async () => {
  gw = await startBtcpayKernel();
});
test.after.always(async () => {
  await gw?.close();
});

test('the table lists every route under the prefix, and only those', (t) => {
  const prefix = gw.kernel.cradle.btcpayConfig.pathPrefix;
  const served = gw.kernel.routes
    .filter((route) => route.path.startsWith(`${prefix}/`))
    .map((route) => `${route.method} ${route.path.slice(prefix.length).replace(/:([A-Za-z]+)/g, '{$1}')}`)
    .sort();
  const documented = documentedCalls()
    .map((row) => `${row.method} ${row.path}`)
    .sort();
  t.true(documented.length > 0);
  t.deepEqual(documented, served);
});

test("every documented call is an operation of BTCPay's published document, or says it is not", (t) => {
  const validator = new GreenfieldValidator();
  for (const row of documentedCalls()) {
    const operation = validator.operation(row.method, row.path);
    if (row.notes.includes(NOT_IN_DOCUMENT)) t.is(operation, undefined, `${row.method} ${row.path} is in the document: drop the note`);
    else t.truthy(operation, `${row.method} ${row.path}`);
  }
});
