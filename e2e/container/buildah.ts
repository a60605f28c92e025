import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@gw/testing';

/**
 * Building and running the gateway's image here, where containers cannot run and no registry is
 * reachable: Debian's buildah with chroot isolation, on a base made with debootstrap from Debian's
 * packages plus the project's own Node (the `node` devDependency), standing in for
 * node:24-bookworm-slim. What is made is kept under .data/container/ (ignored), so a rerun reuses
 * the Debian root file system.
 */

export const BUILDAH = '/usr/bin/buildah';
export const DEBOOTSTRAP = '/usr/sbin/debootstrap';
export const CACHE = join(ROOT, '.data/container');
const MIRROR = process.env['GW_DEBIAN_MIRROR'] ?? 'http://deb.debian.org/debian';

/** buildah's settings for this test: no default ulimits (chroot isolation cannot set them here). */
export function buildahEnv(): NodeJS.ProcessEnv {
  mkdirSync(CACHE, { recursive: true });
  const conf = join(CACHE, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n');
  return { ...process.env, CONTAINERS_CONF: conf };
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion (standard input closed); throws with its output when it fails. */
export async function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = buildahEnv()): Promise<Run> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
  return { code, stdout, stderr };
}

/** Whether buildah's storage has an image of that name. */
export async function imageExists(name: string): Promise<boolean> {
  const child = spawn(BUILDAH, ['inspect', '--type', 'image', name], { env: buildahEnv(), stdio: 'ignore' });
  return (await new Promise<number | null>((resolve) => child.on('exit', resolve))) === 0;
}

/**
 * A Debian bookworm root file system (debootstrap's minbase variant) as a tarball, made once:
 * without the package lists and downloaded packages, documentation, manuals and translations, as
 * Debian's slim images are.
 */
async function bookwormTarball(): Promise<string> {
  const tarball = join(CACHE, 'bookworm-minbase.tar');
  if (existsSync(tarball)) return tarball;
  const rootfs = join(CACHE, 'bookworm-rootfs');
  rmSync(rootfs, { recursive: true, force: true });
  await run(DEBOOTSTRAP, ['--variant=minbase', 'bookworm', rootfs, MIRROR], process.env);
  for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/locale']) {
    rmSync(join(rootfs, dir), { recursive: true, force: true });
    mkdirSync(join(rootfs, dir), { recursive: true });
  }
  await run('tar', ['--numeric-owner', '-C', rootfs, '-cf', `${tarball}.partial`, '.'], process.env);
  renameSync(`${tarball}.partial`, tarball);
  rmSync(rootfs, { recursive: true, force: true });
  return tarball;
}

/** The npm that node images carry beside Node: this machine's (pure JavaScript). */
async function npmPackageDir(): Promise<string> {
  const root = (await run('npm', ['root', '--global'], process.env)).stdout.trim();
  const dir = join(root, 'npm');
  if (!existsSync(join(dir, 'bin/npm-cli.js'))) throw new Error(`npm is not found at ${dir}`);
  return dir;
}

/**
 * The base image: bookworm plus the project's own Node at /usr/local/bin/node and npm at
 * /usr/local/lib/node_modules/npm, the layout of the official node images. Named after the Node
 * version, made once per buildah storage.
 */
export async function baseImage(): Promise<string> {
  const node = realpathSync(join(ROOT, 'node_modules/node/bin/node'));
  const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/node/package.json'), 'utf8')).version as string;
  const name = `localhost/gw-test-base:bookworm-node${version}`;
  if (await imageExists(name)) return name;
  const tarball = await bookwormTarball();
  const npm = await npmPackageDir();
  const container = (await run(BUILDAH, ['from', 'scratch'])).stdout.trim();
  try {
    await run(BUILDAH, ['add', container, tarball, '/']);
    await run(BUILDAH, ['copy', container, node, '/usr/local/bin/node']);
    await run(BUILDAH, ['copy', container, npm, '/usr/local/lib/node_modules/npm']);
    await run(BUILDAH, [
      'run',
      '--isolation',
      'chroot',
      container,
      '--',
      'sh',
      '-c',
      'ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx',
    ]);
    await run(BUILDAH, ['config', '--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '--cmd', 'node', container]);
    await run(BUILDAH, ['commit', '--rm', container, name]);
  } catch (error) {
    await run(BUILDAH, ['rm', container]).catch(() => undefined);
    throw error;
  }
  return name;
}

/** The pnpm store this checkout was installed from (node_modules/.modules.yaml), without its version folder. */
export function pnpmStoreDir(): string {
  // pnpm writes the file as JSON (which YAML includes).
  const modules = JSON.parse(readFileSync(join(ROOT, 'node_modules/.modules.yaml'), 'utf8')) as { storeDir?: string };
  if (!modules.storeDir) throw new Error('node_modules/.modules.yaml names no storeDir');
  return modules.storeDir.replace(/\/v\d+$/, '');
}
