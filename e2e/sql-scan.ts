/**
 * Finds SQL built as a string: an untagged template literal with substitutions, a `+`
 * concatenation or an array `.join(...)` whose text reads as SQL, or any of them handed to a
 * query method (`raw`, `query`, `whereRaw` and the other `*Raw`s, `{ text }` of pg). The kernel's
 * `sql` tag (a tagged template) is the way to put values in a statement, `sqlIdentifier` the way
 * to put a name there. Shared by e2e/sql-building.test.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** One finding: the file, its line, and the offending expression's text (first 120 characters). */
export interface StringBuiltSql {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

const QUERY_METHODS = /^(raw|query|[a-z]+Raw)$/;
/** How a statement starts, for built strings not (yet) handed to a query method. */
const SQL_START =
  /^\s*\(?\s*(select\s[\s\S]*\bfrom\b|select\s*$|insert\s+into\s|update\s+\S+\s+set\s|delete\s+from\s|with\s+\w+\s+as\s|(create|drop|alter)\s+(table|index|unique\s+index|database|role|schema|extension|trigger|function|owned\s+by)\s|truncate\s|grant\s+\w+\s+on\s)/i;

/** All .ts files below `dir` (node_modules and dist skipped). */
export function typeScriptFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...typeScriptFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The literal text of a built string, each computed piece standing as `…`. */
function literalText(node: ts.Expression): string {
  if (ts.isParenthesizedExpression(node)) return literalText(node.expression);
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => `…${span.literal.text}`).join('');
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return literalText(node.left) + literalText(node.right);
  return '…';
}

/** A string computed at run time from pieces: template with substitutions, concatenation with a literal, or join. */
function isBuiltString(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return isBuiltString(node.expression);
  // The kernel's `sql` tag (or any tag) turns substitutions into parameters: not a built string.
  if (ts.isTemplateExpression(node)) return !ts.isTaggedTemplateExpression(node.parent);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return [node.left, node.right].some((side) => ts.isStringLiteralLike(side) || ts.isTemplateExpression(side) || isBuiltString(side));
  }
  return ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'join';
}

function calledMethod(node: ts.Node): string | undefined {
  if (!ts.isCallExpression(node)) return undefined;
  const callee = node.expression;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** String-built SQL in one file's text. */
export function findStringBuiltSql(file: string, text = readFileSync(file, 'utf8')): StringBuiltSql[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: StringBuiltSql[] = [];
  const seen = new Set<ts.Node>();
  const report = (node: ts.Expression): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    found.push({ file, line, text: node.getText(sf).replace(/\s+/g, ' ').slice(0, 120) });
  };
  const visit = (node: ts.Node): void => {
    // A query method given a built string as its statement (first argument, or pg's `{ text }`).
    const method = calledMethod(node);
    if (method !== undefined && QUERY_METHODS.test(method)) {
      const [first] = (node as ts.CallExpression).arguments;
      if (first && isBuiltString(first)) report(first);
      if (first && ts.isObjectLiteralExpression(first)) {
        for (const property of first.properties) {
          if (ts.isPropertyAssignment(property) && property.name.getText(sf) === 'text' && isBuiltString(property.initializer)) report(property.initializer);
        }
      }
    }
    // A built string that reads as SQL, wherever it goes (a variable handed to a query later).
    if (ts.isExpression(node) && isBuiltString(node) && !(node.parent && ts.isBinaryExpression(node.parent) && isBuiltString(node.parent))) {
      if (SQL_START.test(literalText(node))) report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}
