/**
 * The packages partners install outside the repository (issue 42 item 3), built and packed the one
 * way: `@gw/client` and `@gw/webhook-verify` as libraries (an ES module build in dist/esm and a
 * CommonJS build in dist/cjs, with a package.json saying so, each with its type declarations), and
 * `@gw/cli` as one bundled ES module file (dist/gateway.js, its `gateway` executable) with
 * `@gw/client` inside it, so it installs with no dependency.
 *
 * In the workspace each package's `exports` name its TypeScript sources; its `publishConfig` names
 * the built files. A tarball is packed from a staging folder holding the build, the README and the
 * manifest as published (`publishConfig` applied; no `scripts`, `devDependencies` or `private`),
 * with plain `npm pack`, and refused when the manifest still names a source file, a `workspace:`
 * version or a file the tarball lacks.
 *
 *   node --import tsx scripts/partner-packages.ts build [client|webhook-verify|cli ...]   into packages/<name>/dist
 *   node --import tsx scripts/partner-packages.ts pack <folder> [client|webhook-verify|cli ...]   tarballs into <folder>
 *
 * Without names: all three.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const PARTNER_PACKAGES = ['client', 'webhook-verify', 'cli'] as const;
export type PartnerPackage = (typeof PARTNER_PACKAGES)[number];

/** A package's folder in the workspace. */
export const packageDir = (name: PartnerPackage): string => join(ROOT, 'packages', name);

interface LibraryBuild {
  readonly kind: 'library';
  /** Entry points under src/, each built to dist/{esm,cjs}/<name>.js. */
  readonly entries: readonly string[];
  /** One file per entry with its imports inside (the client bundles the webhook contract), or each source file as it is. */
  readonly bundle: boolean;
  readonly platform: 'neutral' | 'node';
  /** The declarations' compiler options (emitDeclarationOnly, outDir dist/esm). */
  readonly tsconfig: string;
  /** After the declarations are in `esmDir`, before they are copied to dist/cjs. */
  readonly afterDeclarations?: (tsc: string, esmDir: string) => void;
}

interface CommandBuild {
  readonly kind: 'command';
  readonly entry: string;
  /** The executable, relative to the output folder. */
  readonly outfile: string;
}

const BUILDS: Readonly<Record<PartnerPackage, LibraryBuild | CommandBuild>> = {
  client: {
    kind: 'library',
    entries: ['index.ts'],
    bundle: true,
    // Web fetch and Web Crypto only: the bundle cannot come to need a Node built-in by accident.
    platform: 'neutral',
    tsconfig: 'tsconfig.build.json',
    afterDeclarations: emitClientContractDeclarations,
  },
  'webhook-verify': {
    kind: 'library',
    entries: ['index.ts', 'contract.ts'],
    // index.js imports ./contract.js, so the two entries share one copy of the contract.
    bundle: false,
    platform: 'node',
    tsconfig: 'tsconfig.build.json',
  },
  cli: { kind: 'command', entry: 'main.ts', outfile: 'gateway.js' },
};

const typescriptCompiler = (): string => join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/**
 * Builds one package into `outDir` (default packages/<name>/dist, which is emptied first);
 * returns the folder.
 */
export async function buildPartnerPackage(name: PartnerPackage, outDir: string = join(packageDir(name), 'dist')): Promise<string> {
  const dir = packageDir(name);
  const spec = BUILDS[name];
  rmSync(outDir, { recursive: true, force: true });
  if (spec.kind === 'command') {
    const outfile = join(outDir, spec.outfile);
    await build({
      entryPoints: [join(dir, 'src', spec.entry)],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // Parsed at every start: smaller is sooner (docs/performance.md, "Issue 42: partner packages").
      minify: true,
      keepNames: true,
      legalComments: 'none',
      logLevel: 'warning',
      banner: { js: '#!/usr/bin/env node' },
    });
    chmodSync(outfile, 0o755);
    return outDir;
  }
  for (const format of ['esm', 'cjs'] as const) {
    await build({
      entryPoints: spec.entries.map((entry) => join(dir, 'src', entry)),
      outdir: join(outDir, format),
      bundle: spec.bundle,
      format,
      platform: spec.platform,
      target: 'es2022',
      ...(spec.platform === 'neutral' ? { external: ['node:crypto'] } : {}),
      sourcemap: true,
      legalComments: 'none',
      logLevel: 'warning',
    });
  }
  const tsc = typescriptCompiler();
  const esmDir = join(outDir, 'esm');
  execFileSync(process.execPath, [tsc, '-p', join(dir, spec.tsconfig), '--outDir', esmDir], { stdio: 'inherit' });
  spec.afterDeclarations?.(tsc, esmDir);
  copyDeclarations(esmDir, join(outDir, 'cjs'));
  writeFileSync(join(outDir, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  return outDir;
}

const CLIENT_CONTRACT = '@gw/webhook-verify/contract';

/**
 * The client bundles the webhook wire contract (`@gw/webhook-verify/contract`), so its declarations
 * go beside the client's as `webhook-contract.d.ts` (packages/client/tsconfig.contract.json: the
 * build's options), with the client's imports of it pointed there; a declaration still naming a
 * workspace package fails the build.
 */
function emitClientContractDeclarations(tsc: string, esmDir: string): void {
  execFileSync(process.execPath, [tsc, '-p', join(packageDir('client'), 'tsconfig.contract.json'), '--outDir', esmDir], { stdio: 'inherit' });
  renameSync(join(esmDir, 'contract.d.ts'), join(esmDir, 'webhook-contract.d.ts'));
  for (const name of readdirSync(esmDir)) {
    if (!name.endsWith('.d.ts')) continue;
    const path = join(esmDir, name);
    const text = readFileSync(path, 'utf8').replaceAll(`'${CLIENT_CONTRACT}'`, "'./webhook-contract.js'");
    if (/from '@gw\//.test(text)) throw new Error(`${path} still imports a workspace package`);
    writeFileSync(path, text);
  }
}

function copyDeclarations(from: string, to: string): void {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) {
      mkdirSync(join(to, name), { recursive: true });
      copyDeclarations(source, join(to, name));
    } else if (name.endsWith('.d.ts')) {
      copyFileSync(source, join(to, name));
    }
  }
}

type Manifest = Record<string, unknown> & { name: string; version: string; files?: string[]; publishConfig?: Record<string, unknown> };

const readManifest = (name: PartnerPackage): Manifest => JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as Manifest;

/** The manifest as the tarball carries it: `publishConfig` applied, the workspace's own fields dropped. */
export function publishedManifest(name: PartnerPackage): Manifest {
  const { publishConfig, scripts: _scripts, devDependencies: _devDependencies, private: _private, ...rest } = readManifest(name);
  return { ...rest, ...publishConfig } as Manifest;
}

/** Every file a manifest field points at (exports, main, module, types, bin), as written. */
function manifestTargets(manifest: Manifest): string[] {
  const targets: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) collect(inner);
  };
  for (const field of ['exports', 'main', 'module', 'types', 'bin']) collect(manifest[field]);
  return targets;
}

/** Why a staged package must not be packed; empty when it may. */
export function stagedPackageProblems(stage: string): string[] {
  const manifest = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8')) as Manifest;
  const problems: string[] = [];
  const text = JSON.stringify(manifest);
  if (text.includes('workspace:')) problems.push('the manifest names a workspace: version');
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const dependency of Object.keys((manifest[field] as Record<string, string> | undefined) ?? {})) {
      if (dependency.startsWith('@gw/')) problems.push(`${field} names ${dependency}, which no registry serves`);
    }
  }
  for (const target of manifestTargets(manifest)) {
    if (!target.startsWith('./dist/') && target !== './package.json') problems.push(`the manifest points at ${target}, outside dist/`);
    else if (!existsSync(resolve(stage, target))) problems.push(`the manifest points at ${target}, which the build did not write`);
  }
  return problems;
}

/** npm's command-line entry, run on this Node: the `npm` on PATH. */
function npmCli(): string {
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    const candidate = join(dir, 'npm');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error('npm is not on PATH; packing and installing the partner packages use it');
}

/**
 * Builds one package into a staging folder, writes the published manifest and the README beside
 * the build, and packs it with `npm pack` into `destination`; returns the tarball's path.
 */
export async function packPartnerPackage(name: PartnerPackage, destination: string): Promise<string> {
  const stage = mkdtempSync(join(tmpdir(), `gw-pack-${name}-`));
  try {
    const manifest = publishedManifest(name);
    await buildPartnerPackage(name, join(stage, 'dist'));
    for (const file of manifest.files ?? []) {
      if (file !== 'dist') cpSync(join(packageDir(name), file), join(stage, file), { recursive: true });
    }
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const problems = stagedPackageProblems(stage);
    if (problems.length > 0) throw new Error(`${manifest.name} cannot be packed:\n  ${problems.join('\n  ')}`);
    mkdirSync(destination, { recursive: true });
    const out = execFileSync(npmCli(), ['pack', '--json', '--ignore-scripts', '--pack-destination', resolve(destination)], {
      cwd: stage,
      encoding: 'utf8',
      env: { ...process.env, npm_config_cache: join(stage, '.npm-cache'), npm_config_update_notifier: 'false' },
    });
    const [packed] = JSON.parse(out) as { filename: string }[];
    return join(resolve(destination), packed!.filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function namesFrom(args: readonly string[]): PartnerPackage[] {
  const unknown = args.filter((arg) => !(PARTNER_PACKAGES as readonly string[]).includes(arg));
  if (unknown.length > 0) throw new Error(`unknown package ${unknown.join(', ')}; one of ${PARTNER_PACKAGES.join(', ')}`);
  return args.length > 0 ? (args as PartnerPackage[]) : [...PARTNER_PACKAGES];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'build') {
    for (const name of namesFrom(rest)) console.log(`built ${await buildPartnerPackage(name)}`);
  } else if (command === 'pack' && rest[0]) {
    for (const name of namesFrom(rest.slice(1))) console.log(await packPartnerPackage(name, rest[0]));
  } else {
    console.error('usage: scripts/partner-packages.ts build [names] | pack <folder> [names]');
    process.exit(2);
  }
}
