/**
 * Builds the Python client's wheel with Debian's build tools, offline: `python3 -m build --wheel
 * --no-isolation` of Debian's /usr/bin/python3 (packages python3-build, python3-wheel,
 * python3-setuptools), so nothing is downloaded. The sources are copied to a scratch directory
 * first: the build's `build/` and `*.egg-info` never land in the workspace.
 *
 *   node --import tsx packages/python/scripts/build-wheel.ts [output directory, default packages/python/dist]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Debian's interpreter: the one its python3-build and python3-setuptools packages install for (`python3` on PATH may be another). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** The files of the distribution: the project description, the README and the package. */
const SOURCES = ['pyproject.toml', 'README.md', 'gateway_client'];

/** Builds `gateway_client-<version>-py3-none-any.whl` into `outDir`; resolves with its path. */
export function buildWheel(outDir: string): string {
  const work = mkdtempSync(join(tmpdir(), 'gw-python-wheel-'));
  try {
    for (const name of SOURCES) cpSync(join(root, name), join(work, name), { recursive: true, filter: (path) => !/__pycache__|\.pyc$/.test(path) });
    mkdirSync(outDir, { recursive: true });
    execFileSync(DEBIAN_PYTHON, ['-m', 'build', '--wheel', '--no-isolation', '--outdir', resolve(outDir), work], {
      cwd: work,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PIP_NO_INDEX: '1' },
      stdio: 'pipe',
    });
    const wheel = readdirSync(outDir).find((name) => name.startsWith('gateway_client-') && name.endsWith('-py3-none-any.whl'));
    if (!wheel) throw new Error(`no gateway_client wheel in ${outDir}`);
    return join(outDir, wheel);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(buildWheel(process.argv[2] ?? join(root, 'dist')));
}
