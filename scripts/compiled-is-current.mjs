import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Whether the bundle `dist` (e.g. apps/cli/dist/main.js) was built from the files of `root` as they
 * are now: every path in the `inputs.json` beside it (written by scripts/build.ts: the workspace
 * files bundled, and the install's marker) exists and is no newer than the bundle. No build, a
 * build without the list, or an input gone: not current.
 */
export function compiledIsCurrent(root, dist) {
  try {
    const built = statSync(dist).mtimeMs;
    const inputs = JSON.parse(readFileSync(join(dirname(dist), 'inputs.json'), 'utf8'));
    return Array.isArray(inputs) && inputs.length > 0 && inputs.every((input) => statSync(join(root, input)).mtimeMs <= built);
  } catch {
    return false;
  }
}
