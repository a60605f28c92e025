/**
 * Start-up time and memory of the gateway process: from source through tsx (ADR 0001) against
 * the compiled bundle on plain Node (ADR 0006). Each run spawns `apps/<app>` against one migrated
 * database, waits for the start-up line and reads the process's memory from /proc (VmRSS now,
 * VmHWM the peak so far), then sends SIGTERM. Runs alternate between the two forms.
 *
 *   DATABASE_URL=postgres://… npx -y pnpm@10.34.9 exec tsx bench/startup/run.ts [runs] [app]
 *
 * The compiled form is built first, to a temporary folder (scripts/build.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApps, distEntry, ROOT, type App } from '../../scripts/build.js';
import { benchPostgres } from '../bench-database.js';

const runs = Number(process.argv[2] ?? 7);
const app = (process.argv[3] ?? 'gateway') as App;

interface Sample {
  readyMs: number;
  rssMiB: number;
  peakMiB: number;
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

async function once(args: string[], env: Record<string, string>): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  for (;;) {
    if (/listening on|Worker started/.test(out)) break;
    if (child.exitCode !== null) throw new Error(`exited early:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const readyMs = performance.now() - started;
  const { rss, peak } = memory(child.pid!);
  child.kill('SIGTERM');
  await exited;
  return { readyMs, rssMiB: rss, peakMiB: peak };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const outRoot = mkdtempSync(join(tmpdir(), 'gw-bench-build-'));
const pgHandle = await benchPostgres();
try {
  await buildApps({ apps: [app], outRoot });
  await pgHandle.withDatabase(async (url) => {
    const env = { DATABASE_URL: url, PORT: '0', GW_MASTER_KEY: 'ab'.repeat(32), LOG_LEVEL: 'warn' };
    const forms = {
      tsx: ['--import', 'tsx', `apps/${app}/src/main.ts`],
      compiled: ['--enable-source-maps', distEntry(app, outRoot)],
      'compiled, no source maps': [distEntry(app, outRoot)],
    };
    await once(forms.tsx, env); // migrations, and a warm file cache for both
    const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(forms).map((k) => [k, []]));
    for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(forms)) samples[name]!.push(await once(args, env));
    console.log(`apps/${app}, ${runs} runs each, medians (min–max)`);
    console.log('| form | ready (ms) | RSS at ready (MiB) | peak RSS (MiB) |');
    console.log('| --- | --- | --- | --- |');
    for (const [name, list] of Object.entries(samples)) {
      const cell = (pick: (s: Sample) => number) => {
        const xs = list.map(pick);
        return `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
      };
      console.log(`| ${name} | ${cell((s) => s.readyMs)} | ${cell((s) => s.rssMiB)} | ${cell((s) => s.peakMiB)} |`);
    }
  });
} finally {
  await pgHandle.stop();
  rmSync(outRoot, { recursive: true, force: true });
}
