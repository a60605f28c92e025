/**
 * `pnpm test:unit`: every database-free test (ava.unit.config.js: the tests under each package's
 * `src/`), for a quick feedback loop without PostgreSQL. The same guard as scripts/test.ts refuses
 * files that declare no test or use `.only`, `.skip` or `.todo`. The database variables are removed
 * from ava's environment, so a unit test that needs a database fails loudly (createTestDatabase:
 * "No test database server") rather than quietly reaching a server the developer happens to run.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkTestFiles } from './test-guard.js';

const CONFIG = 'ava.unit.config.js';
const root = process.cwd();
const { default: config } = (await import(pathToFileURL(join(root, CONFIG)).href)) as { default: { files: string[] } };
const refused = checkTestFiles(root, config.files);
if (refused.length > 0) {
  console.error('scripts/test-unit.ts: the run is refused; it would pass without running every declared test:');
  for (const finding of refused) console.error(`  ${finding.file}: ${finding.problem}`);
  process.exit(1);
}

const env = { ...process.env };
for (const name of ['DATABASE_URL', 'GW_TEST_ADMIN_URL', 'GW_TEST_TEMPLATE', 'PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER', 'PGPASSWORD']) delete env[name];
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ['node_modules/ava/entrypoints/cli.mjs', '--config', CONFIG, ...process.argv.slice(2)], { stdio: 'inherit', env });
  child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
});
process.exit(code);
