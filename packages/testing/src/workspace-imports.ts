/**
 * Relative imports that leave their package, found by reading the workspace's sources. A relative
 * import across packages is a dependency the package graph (pnpm, the lockfile, the build) cannot
 * see: the helpers that tests share live in `@gw/testing` or behind a package's `./testing` export,
 * and a test reaches other packages by name, through a declared dependency.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportFinding {
  /** The importing file, relative to the workspace root. */
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  readonly problem: string;
}

const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;
const SKIP = new Set(['node_modules', 'dist', 'coverage']);

/** The workspace's package folders (pnpm-workspace.yaml's `packages`, `dir` and `dir/*` forms). */
export function workspacePackages(root: string): string[] {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const dirs: string[] = [];
  for (const match of yaml.matchAll(/^\s*-\s*['"]?([^'"\s#]+)['"]?\s*$/gm)) {
    const pattern = match[1]!;
    if (pattern.endsWith('/*')) {
      const parent = join(root, pattern.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent, { withFileTypes: true })) {
        if (entry.isDirectory() && existsSync(join(parent, entry.name, 'package.json'))) dirs.push(join(pattern.slice(0, -2), entry.name));
      }
    } else if (existsSync(join(root, pattern, 'package.json'))) dirs.push(pattern);
  }
  return dirs.sort((a, b) => b.length - a.length);
}

/** Whether `file` (relative to its package) is a test or a test helper. */
function isTestCode(pkg: string, fileInPackage: string): boolean {
  return pkg === 'e2e' || pkg === 'packages/testing' || /\.test\.[cm]?[jt]s$/.test(fileInPackage) || fileInPackage.split('/').includes('test');
}

/**
 * Every finding under `root`: in any file, a relative import of another package's `test/` folder;
 * in tests and their helpers, any relative import that leaves the package (another package's
 * `src/`, an app's composition, another test folder).
 */
export function findCrossPackageImports(root: string): ImportFinding[] {
  const packages = workspacePackages(root);
  const owner = (path: string) => packages.find((pkg) => path === pkg || path.startsWith(`${pkg}/`));
  const findings: ImportFinding[] = [];
  for (const pkg of packages) {
    for (const file of walk(root, join(root, pkg))) {
      const fileInPackage = file.slice(pkg.length + 1);
      const sf = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
      for (const { specifier, node } of moduleSpecifiers(sf)) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(root, resolve(root, dirname(file), specifier))
          .split(sep)
          .join('/');
        const targetPackage = owner(target);
        if (targetPackage === pkg) continue;
        const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        const inTarget = targetPackage ? target.slice(targetPackage.length + 1) : target;
        if (targetPackage && inTarget.split('/').includes('test')) {
          findings.push({ file, line, specifier, problem: `reaches into ${targetPackage}'s test/ folder` });
        } else if (isTestCode(pkg, fileInPackage)) {
          findings.push({
            file,
            line,
            specifier,
            problem: targetPackage ? `reaches into ${targetPackage} by relative path` : 'leaves its package by relative path',
          });
        }
      }
    }
  }
  return findings;
}

/** Static imports and re-exports, dynamic `import()` and `import x = require()` specifiers. */
function moduleSpecifiers(sf: ts.SourceFile): { specifier: string; node: ts.Node }[] {
  const found: { specifier: string; node: ts.Node }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, node });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, node });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, node });
    } else if (ts.isExternalModuleReference(node) && ts.isStringLiteral(node.expression)) {
      found.push({ specifier: node.expression.text, node });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function* walk(root: string, dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    // A nested package is walked as its own.
    if (entry.isDirectory()) {
      if (!existsSync(join(path, 'package.json'))) yield* walk(root, path);
    } else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) yield relative(root, path).split(sep).join('/');
  }
}
