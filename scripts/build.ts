/**
 * `pnpm build`: compiles each app's entry point (apps/<app>/src/main.ts) once, to
 * apps/<app>/dist/main.js, so production runs plain JavaScript on Node instead of compiling
 * TypeScript through tsx at every start (docs/adr/0006-compiled-production-build.md).
 *
 * What is bundled and what is not:
 * - The workspace's own packages (@gw/*, TypeScript sources) are bundled into each app's file.
 * - Everything from node_modules stays outside the bundle and is loaded by Node as it is, from
 *   where pnpm installed it. The import is rewritten to the resolved file relative to the output,
 *   because pnpm's node_modules are strict (apps/all/node_modules holds only its own direct
 *   dependencies, not the kernel's), so a bare `import 'koa'` would not resolve from apps/all/dist.
 *   A build therefore belongs to the checkout and the install it was made in; `pnpm start` builds
 *   after installing.
 * - `import.meta.url` in a bundled source file is rewritten to that source file's URL (relative
 *   to the bundle), so files read from disk beside the source (the checkout page's assets, the
 *   Swagger UI package found from the kernel) resolve as they do when run from source.
 *
 *   node --import tsx scripts/build.ts [app …]      (all apps when none is named)
 *
 * Source maps are written beside each bundle; the start scripts run Node with
 * --enable-source-maps so a stack trace names the TypeScript file and line.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const APPS = ['all', 'gateway', 'worker', 'cli'] as const;
export type App = (typeof APPS)[number];

/** Path of an app's compiled entry point: apps/<app>/dist/main.js, or <outRoot>/<app>/main.js. */
export function distEntry(app: App, outRoot?: string): string {
  return outRoot === undefined ? join(ROOT, 'apps', app, 'dist', 'main.js') : join(outRoot, app, 'main.js');
}

const toPosix = (path: string): string => path.split(sep).join('/');
const relativeSpecifier = (fromDir: string, to: string): string => {
  const rel = toPosix(relative(fromDir, to));
  return rel.startsWith('.') ? rel : `./${rel}`;
};
const inNodeModules = (path: string): boolean => path.split(sep).includes('node_modules');

/** node_modules stay external, imported by their resolved path relative to the bundle. */
function externalNodeModules(outDir: string): Plugin {
  return {
    name: 'external-node-modules',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('node:') || args.pluginData?.skip) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { skip: true } });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external || !inNodeModules(resolved.path)) return resolved;
        return { path: relativeSpecifier(outDir, resolved.path), external: true };
      });
    },
  };
}

/** `import.meta.url` in a workspace source file means that file, not the bundle. */
function sourceImportMetaUrl(outDir: string): Plugin {
  return {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
        if (inNodeModules(args.path)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
        const rel = relativeSpecifier(outDir, args.path);
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/**
 * Beside each bundle, `inputs.json`: the workspace files it was built from (paths relative to the
 * checkout) and the install's marker, so `./gateway` can tell whether the compiled CLI is still
 * current (scripts/gateway.mjs) without rebuilding.
 */
export const inputsFile = (outfile: string): string => join(dirname(outfile), 'inputs.json');

function workspaceInputs(metafile: Metafile): string[] {
  const inputs = Object.keys(metafile.inputs)
    .map((input) => resolve(process.cwd(), input))
    .filter((path) => !inNodeModules(path))
    .map((path) => toPosix(relative(ROOT, path)));
  // A new install may move what the bundle imports from node_modules.
  return [...new Set(inputs), 'node_modules/.modules.yaml'].sort();
}

/** Builds the given apps; `outRoot` puts them elsewhere than apps/<app>/dist (the tests build to a temporary folder). */
export async function buildApps(options: { apps?: readonly App[]; outRoot?: string } = {}): Promise<string[]> {
  const outputs: string[] = [];
  for (const app of options.apps ?? APPS) {
    const outfile = distEntry(app, options.outRoot);
    const outDir = dirname(outfile);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const result = await build({
      entryPoints: [join(ROOT, 'apps', app, 'src', 'main.ts')],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node24',
      sourcemap: true,
      // Class and function names as in the sources (bundling would rename clashes: an error's
      // type in the log would read ProviderError2).
      keepNames: true,
      legalComments: 'none',
      logLevel: 'warning',
      plugins: [externalNodeModules(outDir), sourceImportMetaUrl(outDir)],
      banner: { js: `// Built by scripts/build.ts from apps/${app}/src/main.ts; do not edit.` },
      metafile: true,
    });
    writeFileSync(inputsFile(outfile), `${JSON.stringify(workspaceInputs(result.metafile), null, 1)}\n`);
    outputs.push(outfile);
  }
  return outputs;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const named = process.argv.slice(2);
  const unknown = named.filter((app) => !(APPS as readonly string[]).includes(app));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown app ${unknown.join(', ')}: the apps are ${APPS.join(', ')}\n`);
    process.exit(1);
  }
  const outputs = await buildApps(named.length > 0 ? { apps: named as App[] } : {});
  process.stdout.write(`Built ${outputs.map((o) => relative(ROOT, o)).join(', ')} in ${Math.round(performance.now() - started)} ms\n`);
}
