/**
 * The partner CLI's install size and cold start (issue 42 item 3): `@gw/cli` packed
 * (scripts/partner-packages.ts) and installed with `npm install --offline <tarball>` in a folder
 * under the system's temporary directory, against the partner commands as a checkout runs them
 * before and after this issue: `./gateway` (the compiled operator CLI, apps/cli/dist/main.js, built
 * here first) and `npx -y pnpm@10.34.9 gateway` (npx and pnpm in front of it). Each form runs
 * `<cli> --help` and `<cli> api --help` in turn, `runs` times after one warm-up, each as a whole
 * process under `/usr/bin/time` (wall, user + system CPU, peak RSS); `node -e 0` is the floor.
 *
 *   npx -y pnpm@10.34.9 exec tsx bench/partner-cli/run.ts [runs] [--no-npx]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { buildApps, ROOT } from '../../scripts/build.js';
import { packPartnerPackage } from '../../scripts/partner-packages.js';

const runs = Number(process.argv[2] ?? 9);
const withNpx = !process.argv.includes('--no-npx');
const PATH = `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`;

interface Sample {
  wall: number;
  cpu: number;
  peakMiB: number;
}

/** One whole process under /usr/bin/time; fails loudly on a non-zero exit. */
function timed(command: string, args: readonly string[], cwd: string): Sample {
  const run = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', command, ...args], { cwd, env: { ...process.env, PATH }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status}:\n${run.stderr}`);
  const [wall, user, system, kib] = run.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall: wall!, cpu: user! + system!, peakMiB: kib! / 1024 };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Bytes of every file under `dir` (apparent size) and the blocks they take (what `du -s` says). */
function sizeOf(dir: string): { bytes: number; diskBytes: number; files: number } {
  let bytes = 0;
  let diskBytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const stat = statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false });
    if (!stat) continue;
    diskBytes += stat.blocks * 512;
    if (entry.isFile()) {
      bytes += stat.size;
      files += 1;
    }
  }
  return { bytes, diskBytes, files };
}

const scratch = mkdtempSync(join(tmpdir(), 'gw-bench-partner-cli-'));
try {
  const tarball = await packPartnerPackage('cli', join(scratch, 'tarballs'));
  const app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'partner-tools', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
    cwd: app,
    env: { ...process.env, PATH, npm_config_cache: join(scratch, 'npm-cache'), npm_config_update_notifier: 'false' },
    stdio: 'ignore',
  });
  const installed = sizeOf(join(app, 'node_modules'));
  console.log(
    `tarball ${statSync(tarball).size} bytes; node_modules after npm install: ${installed.files} files, ${installed.bytes} bytes, ${installed.diskBytes} bytes on disk`,
  );

  await buildApps({ apps: ['cli'] });
  const forms: { name: string; command: string; prefix: string[]; cwd: string }[] = [
    { name: 'node -e 0 (floor)', command: process.execPath, prefix: ['-e', '0'], cwd: app },
    { name: 'installed @gw/cli: gateway', command: join(app, 'node_modules', '.bin', 'gateway'), prefix: [], cwd: app },
    { name: 'checkout: ./gateway (compiled)', command: process.execPath, prefix: [join(ROOT, 'scripts', 'gateway.mjs')], cwd: ROOT },
    ...(withNpx ? [{ name: 'checkout: npx -y pnpm@10.34.9 gateway', command: 'npx', prefix: ['-y', 'pnpm@10.34.9', '-s', 'gateway'], cwd: ROOT }] : []),
  ];
  const commands = [['--help'], ['api', '--help']];
  const samples = new Map<string, Sample[]>();
  for (const form of forms) for (const args of commands) timed(form.command, [...form.prefix, ...args], form.cwd);
  for (let i = 0; i < runs; i += 1) {
    for (const form of forms) {
      for (const args of commands) {
        if (form.prefix[0] === '-e' && args.length > 1) continue;
        const key = `${form.name} | ${form.prefix[0] === '-e' ? '' : args.join(' ')}`;
        samples.set(key, [...(samples.get(key) ?? []), timed(form.command, [...form.prefix, ...args], form.cwd)]);
      }
    }
  }
  console.log(
    `\n${runs} runs each, Node ${process.version}, load average ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  console.log('| form | command | wall ms, median (min–max) | CPU ms, median | peak MiB, median |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [key, list] of samples) {
    const [form, command] = key.split(' | ');
    const walls = list.map((s) => s.wall * 1000);
    console.log(
      `| ${form} | ${command ? `\`${command}\`` : ''} | ${Math.round(median(walls))} (${Math.round(Math.min(...walls))}–${Math.round(Math.max(...walls))}) | ${Math.round(median(list.map((s) => s.cpu * 1000)))} | ${Math.round(median(list.map((s) => s.peakMiB)))} |`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
