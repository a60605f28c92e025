import test from 'ava';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AccountSignedFile, SignedFile } from '@gw/chain-api';
import { Transaction } from 'ethers';
import { accountPlan, evmSigner, evmTx, evmWallet, externalEvmAddress, SEPOLIA_CHAIN_ID, step } from './account-testing.js';
import { btcPlanOnDisk, MNEMONIC, runSignerProcess, SIGNER_BIN } from './testing.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/**
 * A network namespace with no interface but a loopback that is down. As root `unshare --net`;
 * otherwise in a user namespace of its own, where the user is root.
 */
const NO_NETWORK = process.getuid?.() === 0 ? ['unshare', '--net', '--'] : ['unshare', '--user', '--map-root-user', '--net', '--'];

test('gateway-signer signs a plan inside a network namespace without interfaces', async (t) => {
  const { dir, plan, planPath, signedPath } = btcPlanOnDisk('gateway-signer-offline-', { index: 3, value: 75_000n });
  const keyPath = join(dir, 'key');
  writeFileSync(keyPath, MNEMONIC);
  // In the same namespace, before the signer: what interfaces there are, and what a connection gets.
  const probe =
    'echo LINKS-BEGIN >&2; ip -o link show >&2; echo LINKS-END >&2; ' +
    `"$0" -e "require('node:net').connect(443, '1.1.1.1').on('connect', () => { console.error('CONNECT ok'); process.exit(0); }).on('error', (e) => console.error('CONNECT ' + e.code))" ; ` +
    'exec "$0" "$@"';
  const run = await runSignerProcess(['sign', planPath, '--key-file', keyPath, '--yes'], { wrapper: [...NO_NETWORK, 'sh', '-c', probe] });
  t.is(run.code, 0, run.stderr);

  const links = run.stderr.split('LINKS-BEGIN\n')[1]!.split('LINKS-END')[0]!.trim().split('\n');
  t.is(links.length, 1, links.join('\n'));
  t.regex(links[0]!, /^1: lo: <LOOPBACK>/, 'only the loopback, and it is down');
  t.regex(run.stderr, /CONNECT ENETUNREACH/);

  const signed = JSON.parse(readFileSync(signedPath, 'utf8')) as SignedFile;
  t.is(signed.plan_id, plan.plan_id);
  t.regex(run.stderr, new RegExp(`Signed transaction ${plan.unsigned.txid}`));
});

test('gateway-signer signs an account plan (EVM, TRON and TON libraries loaded) inside a network namespace without interfaces', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-signer-offline-account-'));
  const destination = externalEvmAddress();
  const tx = evmTx({ to: destination, value: 5_000n, nonce: 2 });
  const plan = accountPlan({ chain: 'eth', network: 'sepolia', evm_chain_id: SEPOLIA_CHAIN_ID, coin: 'eth', method: 'native', destination }, [
    step({
      id: 'native-1',
      signer: evmSigner(1),
      format: 'evm-tx',
      data: tx.hex,
      nonce: 2n,
      to: destination,
      moves: { eth: 5_000n },
      fee: tx.fee,
    }),
  ]);
  const planPath = join(dir, 'plan.json');
  writeFileSync(planPath, JSON.stringify(plan));
  const keyPath = join(dir, 'key');
  writeFileSync(keyPath, MNEMONIC);
  const probe = 'ip -o link show >&2; exec "$0" "$@"';
  const run = await runSignerProcess(['sign', planPath, '--key-file', keyPath, '--yes'], { wrapper: [...NO_NETWORK, 'sh', '-c', probe] });
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /^1: lo: <LOOPBACK>/);
  const signed = JSON.parse(readFileSync(join(dir, 'plan.signed.json'), 'utf8')) as AccountSignedFile;
  t.is(Transaction.from(signed.signed[0]!.signed).from, evmWallet(1).address);
});

/** Node's modules that reach a network, and the ones that would run another program that could. */
const NETWORK_MODULES = ['net', 'http', 'https', 'http2', 'dns', 'tls', 'dgram', 'undici', 'child_process', 'cluster', 'inspector', 'worker_threads'];

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function specifiers(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]!);
}

/** Every file the command loads from this package (from its launcher through relative imports), with the packages they import. */
function commandSources(): { files: string[]; imports: Set<string> } {
  const files: string[] = [];
  const imports = new Set<string>();
  const visit = (path: string) => {
    if (files.includes(path)) return;
    files.push(path);
    for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
      if (specifier.startsWith('.')) visit(resolve(dirname(path), specifier.replace(/\.js$/, '.ts')));
      else imports.add(specifier);
    }
  };
  visit(SIGNER_BIN);
  // The launcher names its entry with `new URL('../src/main.ts', import.meta.url)`.
  visit(join(PACKAGE, 'src', 'main.ts'));
  return { files: files.map((file) => relative(PACKAGE, file)), imports };
}

test('nothing the command loads imports a network module; it imports only its declared dependencies and file, path and terminal modules', (t) => {
  const { files, imports } = commandSources();
  t.true(files.includes('src/psbt-plan.ts') && files.includes('src/cardano-plan.ts') && files.includes('src/ownership-challenge.ts'), files.join(', '));
  for (const accountChain of ['src/evm-step.ts', 'src/tron-step.ts', 'src/ton-step.ts', 'src/account-keys.ts'])
    t.true(files.includes(accountChain), accountChain);
  t.false(files.some((file) => file.endsWith('.test.ts') || file === 'src/testing.ts'));
  const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const packageOf = (specifier: string) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');
  const builtins = [...imports].filter((s) => s.startsWith('node:')).sort();
  t.deepEqual(builtins, ['node:fs/promises', 'node:path', 'node:stream', 'node:util']);
  t.deepEqual(
    [...imports].filter((s) => !s.startsWith('node:') && !(packageOf(s) in manifest.dependencies) && s !== 'tsx/esm/api'),
    [],
    'every package the command imports is a declared dependency (tsx: the launcher, from the checkout)',
  );
  for (const file of files) {
    const source = readFileSync(join(PACKAGE, file), 'utf8');
    t.false(/\bfetch\(|\bWebSocket\b|XMLHttpRequest|EventSource/.test(source), `${file} reaches for a network API`);
  }
});

/**
 * ethers is imported by subpath only: its root and its wallet load the providers, which load `ws`.
 * The ethers modules the command loads (followed through their relative imports) never reach the
 * providers or `ws`; the one that imports Node's http and https is ethers' fetch helper
 * (`utils/geturl.js`, loaded with ethers' utilities), which nothing of the signer calls (no file
 * the command loads names `FetchRequest` or fetch; the namespace tests show no connection is made).
 */
test("the ethers modules the command loads do not reach ethers' providers or ws; only its unused fetch helper imports http", (t) => {
  const { files, imports } = commandSources();
  const subpaths = [...imports].filter((s) => s === 'ethers' || s.startsWith('ethers/'));
  t.true(subpaths.length > 0);
  t.false(subpaths.includes('ethers'), 'the root of ethers loads its providers');
  const root = join(PACKAGE, 'node_modules', 'ethers');
  const exportsMap = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> }).exports;
  const seen = new Set<string>();
  const networkImports: string[] = [];
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
      if (specifier.startsWith('.')) visit(resolve(dirname(path), specifier));
      else if (specifier === 'ws' || NETWORK_MODULES.includes(specifier.replace(/^node:/, '').split('/')[0]!))
        networkImports.push(`${relative(root, path)}: ${specifier}`);
    }
  };
  for (const subpath of subpaths) visit(join(root, exportsMap[`./${subpath.slice('ethers/'.length)}`]!.import));
  t.deepEqual(
    [...seen].filter((file) => /\/(?:providers|wallet|contract)\//.test(file)),
    [],
  );
  t.deepEqual(networkImports.sort(), ['lib.esm/utils/geturl.js: http', 'lib.esm/utils/geturl.js: https']);
  for (const file of files) t.false(/\bFetchRequest\b/.test(readFileSync(join(PACKAGE, file), 'utf8')), file);
});

test('no source file of the package imports a network module (tests: only to spawn the command and probe the namespace)', (t) => {
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(?:ts|mjs|js|cjs)$/.test(entry.name)) all.push(path);
    }
  };
  walk(PACKAGE);
  const offending: string[] = [];
  for (const path of all) {
    const name = relative(PACKAGE, path);
    // Tests and their support spawn the command (child_process); the namespace test's probe tries a
    // connection (net) inside the namespace, to show it fails there.
    // The end-to-end tests in test/ run the gateway's chain treasuries against local nodes (a replay
    // server for TRON); the signer code they call is the offline one checked here.
    const allowed =
      name === 'src/offline.test.ts'
        ? ['child_process', 'net']
        : name.startsWith('test/account-e2e-')
          ? ['http', 'net']
          : name.endsWith('.test.ts') || name === 'src/testing.ts'
            ? ['child_process']
            : [];
    for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
      const bare = specifier.replace(/^node:/, '').split('/')[0]!;
      if (NETWORK_MODULES.includes(bare) && !allowed.includes(bare)) offending.push(`${name}: ${specifier}`);
    }
  }
  t.true(all.length > 10);
  t.deepEqual(offending, []);
});
