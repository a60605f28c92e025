/**
 * Issue 26 finding 1: no pattern of the code backtracks super-linearly. Every regular-expression
 * literal (and `new RegExp('literal')`) in the source of kernel/, plugins/, chains/ and apps/ (tests
 * excluded) is checked with recheck (pure JavaScript backend, no network); a pattern that is
 * polynomial or exponential fails the suite unless it is on the allowlist below with its reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import test from 'ava';
import { checkSync } from 'recheck';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;

/** Patterns allowed although recheck calls them unsafe: `file: source` and why. */
const ALLOWED = new Map<string, string>([]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'test' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function patternsOf(file: string): { source: string; flags: string; line: number }[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { source: string; flags: string; line: number }[] = [];
  const line = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = (node as ts.RegularExpressionLiteral).text;
      const end = literal.lastIndexOf('/');
      found.push({ source: literal.slice(1, end), flags: literal.slice(end + 1), line: line(node) });
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
      const [pattern, flags] = node.arguments ?? [];
      if (pattern && ts.isStringLiteralLike(pattern)) {
        found.push({ source: pattern.text, flags: flags && ts.isStringLiteralLike(flags) ? flags.text : '', line: line(node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const files = ['kernel', 'plugins', 'chains', 'apps'].flatMap((dir) => sourceFiles(join(root, dir)));

test('the scan finds the code and its patterns', (t) => {
  const all = files.flatMap(patternsOf);
  t.true(files.some((f) => f.endsWith('plugins/oauth/src/services/sign-in-service.ts')));
  t.true(all.length > 50, `${all.length} patterns`);
});

test('the checker tells a quadratic pattern from a linear one', (t) => {
  // The e-mail pattern before issue 26, and the one after.
  t.is(checkSync('^[^\\s@]{1,64}@[^\\s@]+\\.[^\\s@]{2,}$', '').status, 'vulnerable');
  t.is(checkSync('^[^\\s@]{1,64}@(?:[^\\s@.]+\\.)+[^\\s@.]{2,}$', '').status, 'safe');
});

test('no pattern in the code backtracks super-linearly', (t) => {
  const unsafe: string[] = [];
  const verdicts = new Map<string, string | undefined>();
  for (const file of files) {
    for (const pattern of patternsOf(file)) {
      const key = `/${pattern.source}/${pattern.flags}`;
      if (!verdicts.has(key)) {
        const result = checkSync(pattern.source, pattern.flags);
        verdicts.set(key, result.status === 'safe' ? undefined : result.status === 'vulnerable' ? result.complexity.summary : result.status);
      }
      const verdict = verdicts.get(key);
      if (verdict === undefined || ALLOWED.has(`${relative(root, file)}: ${key}`)) continue;
      unsafe.push(`${relative(root, file)}:${pattern.line} ${key} (${verdict})`);
    }
  }
  t.deepEqual(unsafe, []);
});
