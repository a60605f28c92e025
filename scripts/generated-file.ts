import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What every generator under scripts/ does with its output `name` (a path from the repository's
 * root): writes `text` there, or, with `--check` on the command line, only compares and says so.
 * Returns false when the check finds the file stale or missing (the generator then exits 1);
 * `regenerate` is the command the message tells the developer to run.
 */
export function writeOrCheckGenerated(name: string, text: string, regenerate: string): boolean {
  const path = join(ROOT, name);
  if (!process.argv.includes('--check')) {
    writeFileSync(path, text);
    console.log(`wrote ${name}`);
    return true;
  }
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined; // missing: stale
  }
  if (current === text) return true;
  console.error(`${name} is stale: run \`${regenerate}\` and commit the result`);
  return false;
}
