/**
 * Builds the publishable package into dist/: one ES module bundle (dist/esm) and one CommonJS
 * bundle (dist/cjs, with a package.json saying so), each with the type declarations. The
 * declarations are compiled against the DOM library without Node's types, so the client cannot
 * come to depend on Node built-ins by accident. The webhook wire contract
 * (`@gw/webhook-verify/contract`) is bundled like the client's own code, and its declarations are
 * emitted next to the client's as `webhook-contract.d.ts`, so the package has no dependency.
 *
 *   node --import tsx packages/client/scripts/build.ts
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

export async function buildClient(): Promise<string> {
  rmSync(dist, { recursive: true, force: true });
  for (const format of ['esm', 'cjs'] as const) {
    await build({
      entryPoints: [join(root, 'src/index.ts')],
      outfile: join(dist, format, 'index.js'),
      bundle: true,
      format,
      platform: 'neutral',
      target: 'es2022',
      external: ['node:crypto'],
      sourcemap: true,
      legalComments: 'none',
      logLevel: 'warning',
    });
  }
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  emitContractDeclarations(tsc, join(dist, 'esm'));
  copyDeclarations(join(dist, 'esm'), join(dist, 'cjs'));
  writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  return dist;
}

const CONTRACT = '@gw/webhook-verify/contract';

/**
 * Declarations of the bundled webhook contract (tsconfig.contract.json: the build's options) as
 * `webhook-contract.d.ts`, with the client's imports of it pointed there; a declaration still
 * naming a workspace package fails the build.
 */
function emitContractDeclarations(tsc: string, out: string): void {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.contract.json'), '--outDir', out], { stdio: 'inherit' });
  renameSync(join(out, 'contract.d.ts'), join(out, 'webhook-contract.d.ts'));
  for (const name of readdirSync(out)) {
    if (!name.endsWith('.d.ts')) continue;
    const path = join(out, name);
    const text = readFileSync(path, 'utf8').replaceAll(`'${CONTRACT}'`, "'./webhook-contract.js'");
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`built ${await buildClient()}`);
}
