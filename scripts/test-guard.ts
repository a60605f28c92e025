/**
 * Refuses a test run that would pass without running what the suite declares. ava exits 0 when a
 * file declares no test (it only prints "No tests found"), and when `.only`, `.skip` or `.todo`
 * leaves tests out (they are reported as skipped, or not at all); scripts/test.ts runs this first
 * and fails the run on any finding.
 *
 * The check reads the syntax of every file ava would run (the globs of ava.config.js), so a title
 * or a comment that merely mentions `.only(` is no finding. A test is a call of ava's default import
 * (`test(...)`, `test.serial(...)`, `test.failing(...)`); hooks, macros and `meta` are not tests. A
 * file that hands ava's `test` to a helper (`receiverSuite(test, ...)`) counts as declaring: the
 * helper declares them, and a helper that declares none is beyond a reading of this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Modifiers that leave declared tests out of the run. */
const REFUSED = new Set(['only', 'skip', 'todo']);
/** Members of ava's `test` whose calls declare no test. */
const NOT_TESTS = new Set(['before', 'after', 'beforeEach', 'afterEach', 'macro', 'meta']);

export interface TestGuardFinding {
  readonly file: string;
  readonly problem: string;
}

/** The `files` globs of `root`'s ava.config.js: the files ava runs from there. */
export async function avaGlobs(root: string): Promise<string[]> {
  const config = (await import(pathToFileURL(join(root, 'ava.config.js')).href)) as { default: { files: string[] } };
  return config.default.files;
}

/** Findings for every file under `root` matching `globs` (ava's syntax: `**`, `*`, leading `!` excludes). */
export function checkTestFiles(root: string, globs: readonly string[]): TestGuardFinding[] {
  const include = globs.filter((glob) => !glob.startsWith('!')).map(globToRegExp);
  const exclude = globs.filter((glob) => glob.startsWith('!')).map((glob) => globToRegExp(glob.slice(1)));
  const findings: TestGuardFinding[] = [];
  for (const file of walk(root, root)) {
    if (!include.some((re) => re.test(file)) || exclude.some((re) => re.test(file))) continue;
    findings.push(...checkTestSource(file, readFileSync(join(root, file), 'utf8')));
  }
  return findings;
}

/** Findings for one test file's source. */
export function checkTestSource(file: string, source: string): TestGuardFinding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const avaNames = new Set<string>();
  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text === 'ava') {
      const name = statement.importClause?.name?.text;
      if (name) avaNames.add(name);
    }
  }
  // Aliases (`const test = anyTest as TestFn<Context>`, ava's typed-context idiom) are ava's test too.
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      let init = declaration.initializer;
      while (init && (ts.isAsExpression(init) || ts.isParenthesizedExpression(init) || ts.isSatisfiesExpression(init) || ts.isTypeAssertionExpression(init)))
        init = init.expression;
      if (init && ts.isIdentifier(init) && avaNames.has(init.text) && ts.isIdentifier(declaration.name)) avaNames.add(declaration.name.text);
    }
  }
  const findings: TestGuardFinding[] = [];
  let declared = 0;
  const line = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && REFUSED.has(node.name.text) && chainRoot(node, avaNames)) {
      findings.push({ file, problem: `line ${line(node)}: \`.${node.name.text}\` leaves tests out of the run` });
    }
    if (ts.isCallExpression(node)) {
      const members = chainMembers(node.expression, avaNames);
      if (members && !members.some((member) => NOT_TESTS.has(member) || REFUSED.has(member))) declared++;
      else if (node.arguments.some((argument) => ts.isIdentifier(argument) && avaNames.has(argument.text))) declared++;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (declared === 0) findings.push({ file, problem: avaNames.size === 0 ? 'declares no test (ava is not imported)' : 'declares no test' });
  return findings;
}

/** Whether `node` is a member chain on ava's import (`test.serial.only`). */
function chainRoot(node: ts.PropertyAccessExpression, avaNames: ReadonlySet<string>): boolean {
  return chainMembers(node, avaNames) !== undefined;
}

/** The members of a chain on ava's import (`test.serial` gives ['serial'], `test` gives []), else undefined. */
function chainMembers(node: ts.Expression, avaNames: ReadonlySet<string>): string[] | undefined {
  const members: string[] = [];
  let current: ts.Expression = node;
  while (ts.isPropertyAccessExpression(current)) {
    members.unshift(current.name.text);
    current = current.expression;
  }
  return ts.isIdentifier(current) && avaNames.has(current.text) ? members : undefined;
}

function* walk(root: string, dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(root, path);
    else if (entry.isFile()) yield relative(root, path).split(sep).join('/');
  }
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is any number of directories, a trailing `**` anything.
      if (glob[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
