/**
 * No import cycle in the kernel or the chain contract (issue 34 item 4): a cycle, even of type-only
 * imports, ties every file on it to every other, so none can move, be read or be tested alone (the
 * one this test was written against ran through the `Cradle` type: container, kernel, plugin,
 * loader, readiness, deps, CLI commands, system routes and the declared-deps check). Relative
 * imports of production sources are followed, static, `export … from` and `import('…')` types alike.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g;

/** The production sources under `dir` and the files each imports by a relative path. */
function importGraph(dir: string): Map<string, string[]> {
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => join(dir, file));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => {
      const target = resolve(dirname(file), match[1]!).replace(/\.js$/, '.ts');
      return existsSync(target) ? target : join(target.replace(/\.ts$/, ''), 'index.ts');
    });
    graph.set(
      file,
      [...new Set(targets)].filter((target) => target !== file),
    );
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each a set of files on a cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.map((path) => relative(ROOT, path)).sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

test('the cycle finder finds a cycle through a type-only import', (t) => {
  const graph = new Map([
    ['/r/a.ts', ['/r/b.ts']],
    ['/r/b.ts', ['/r/c.ts']],
    ['/r/c.ts', ['/r/a.ts']],
    ['/r/d.ts', ['/r/a.ts']],
  ]);
  t.deepEqual(
    cycles(graph).map((component) => component.length),
    [3],
  );
  t.true(new RegExp(IMPORT.source).test("  readonly role: import('./kernel.js').KernelRole;"));
});

for (const dir of ['kernel/src', 'packages/chain-api/src']) {
  test(`${dir} has no import cycle`, (t) => {
    const graph = importGraph(join(ROOT, dir));
    t.true(graph.size > 10, `${dir} has sources`);
    t.deepEqual(cycles(graph), []);
  });
}
