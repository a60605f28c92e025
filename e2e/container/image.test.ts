import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import test from 'ava';
import pg from 'pg';
import { CLI_ACTOR, isConfigEnvName, loadConfig } from '@gw/kernel';
import { createTestDatabase, signedFetch, startTestKernel, type TestDatabase } from '@gw/kernel/testing';
import { chains, plugins } from '@gw/app-gateway';
import { baseEnv, projectWithPools, ROOT } from '@gw/testing';
import { BUILDAH, DEBOOTSTRAP, baseImage, buildahEnv, imageExists, pnpmStoreDir, run } from './buildah.js';
import { readEnvExample } from '../env-example.js';

// The container image (deploy/container/Containerfile) built for real with Debian's buildah on a
// Debian base made by debootstrap plus the project's own Node, then run with
// `buildah run --isolation chroot --network host`: the migrations against a fresh database, the
// gateway serving /healthz and a signed API call, and its clean stop on SIGTERM. Containers cannot
// run on this machine (no cgroups for podman) and no registry is reachable, hence buildah's chroot
// isolation and a base made here. .ci/run installs buildah, debootstrap and docker-compose.
// The compose file is parsed and validated by docker-compose (the Compose schema) and checked below.

const CONTAINER_DIR = join(ROOT, 'deploy/container');
const IMAGE = 'localhost/gw-gateway-test:latest';
const DOCKER_COMPOSE = '/usr/bin/docker-compose';
const PYTHON3 = '/usr/bin/python3';
const RATES = { ETH: '3000' };

/** The example environment file as a key → value map. */
const exampleEnv = (): Record<string, string> => readEnvExample(join(CONTAINER_DIR, 'env.example'));
/** What compose.yaml interpolates or compose itself reads, not the gateway's configuration. */
const COMPOSE_ONLY = ['COMPOSE_PROJECT_NAME', 'POSTGRES_PASSWORD'];

interface ImageConfig {
  User?: string;
  Entrypoint?: string[];
  Cmd?: string[];
  Env?: string[];
  ExposedPorts?: Record<string, unknown>;
  Healthcheck?: { Test?: string[] };
}

/** buildah's image size ("598 MB": decimal units) in bytes. */
function decimalBytes(text: string): number {
  const m = /^([\d.]+)\s*(B|kB|MB|GB)$/.exec(text.trim());
  if (!m) throw new Error(`unexpected image size ${text}`);
  return Number(m[1]) * { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }[m[2] as 'B' | 'kB' | 'MB' | 'GB'];
}

let database: TestDatabase;
let built: { config: ImageConfig; sizeBytes: number; buildMs: number } | undefined;
test.before(async () => {
  database = await createTestDatabase({ empty: true });
});
test.after.always(async () => {
  await database?.drop();
});

test.serial('the Containerfile builds with buildah on a debootstrap base and the project’s Node', async (t) => {
  // A fresh machine debootstraps and builds everything: minutes, more on a loaded machine.
  t.timeout(1_200_000);
  for (const tool of [BUILDAH, DEBOOTSTRAP]) t.true(existsSync(tool), `${tool} is missing (Debian packages buildah, debootstrap; .ci/run installs them)`);
  const started = performance.now();
  const base = await baseImage();
  const baseMs = performance.now() - started;
  // The proxy this machine's npm goes through may present its own certificate authority; the
  // build trusts the host's bundle besides Node's roots (the Containerfile's NODE_EXTRA_CA_CERTS).
  const hostCa = process.env['NODE_EXTRA_CA_CERTS'] ?? '/etc/ssl/certs/ca-certificates.crt';
  const ca = existsSync(hostCa) ? ['--volume', `${hostCa}:/run/gw-host-ca.crt:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/gw-host-ca.crt'] : [];
  // The previous run's image goes first: without --layers a rebuild shares nothing with it, and a
  // name moved to the new image would leave the old one behind unnamed, one per run.
  if (await imageExists(IMAGE)) await run(BUILDAH, ['rmi', '--force', IMAGE]);
  const buildStarted = performance.now();
  await run(BUILDAH, [
    'bud',
    '--isolation',
    'chroot',
    // HEALTHCHECK is part of Docker's image format only (OCI's has no field for it).
    '--format',
    'docker',
    '--build-arg',
    `BASE=${base}`,
    ...ca,
    // The packages this checkout was installed from: the build's pnpm imports them instead of
    // downloading them again (the lockfile's integrity hashes are checked either way).
    '--volume',
    `${pnpmStoreDir()}:/pnpm/store`,
    '--file',
    join(CONTAINER_DIR, 'Containerfile'),
    '--tag',
    IMAGE,
    ROOT,
  ]);
  const buildMs = performance.now() - buildStarted;
  const [inspected] = JSON.parse((await run(BUILDAH, ['images', '--json', IMAGE])).stdout) as { size: string }[];
  const sizeBytes = decimalBytes(inspected!.size);
  const image = JSON.parse((await run(BUILDAH, ['inspect', '--type', 'image', IMAGE])).stdout) as { Docker: { config: ImageConfig } };
  built = { config: image.Docker.config, sizeBytes, buildMs };
  t.log(`base ${Math.round(baseMs)} ms, image build ${Math.round(buildMs)} ms, image size ${inspected!.size}`);

  const config = built.config;
  t.is(config.User, 'gateway:gateway', 'the runtime stage runs as the unprivileged user');
  t.deepEqual(config.Entrypoint, ['/app/deploy/container/entrypoint.sh']);
  t.deepEqual(config.Cmd, ['gateway']);
  t.true(config.Env?.includes('HOST=0.0.0.0') && config.Env.includes('PORT=8080'), JSON.stringify(config.Env));
  t.deepEqual(Object.keys(config.ExposedPorts ?? {}), ['8080/tcp']);
  t.deepEqual(config.Healthcheck?.Test, ['CMD', 'node', '/app/deploy/container/healthcheck.mjs']);
});

/** A process inside the image: `buildah run` of a container made from it, in a process group of its own. */
interface InImage {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
  readonly startedAt: number;
  /** Ends the process group (SIGKILL) if anything of it is still running. */
  kill(): void;
}

function runInImage(container: string, env: Record<string, string>, command: readonly string[]): InImage {
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  const startedAt = performance.now();
  const child = spawn(BUILDAH, ['run', '--isolation', 'chroot', '--network', 'host', ...envArgs, container, '--', ...command], {
    env: buildahEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone.
    }
  };
  return { child, output: () => text, exited, startedAt, kill };
}

/** The processes whose environment holds `marker` (from /proc): what `buildah run` started with it. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

test.serial('inside the image: migrations on a fresh database, the gateway’s /healthz and a signed call, a clean stop on SIGTERM', async (t) => {
  t.timeout(300_000);
  if (!built) {
    t.fail('the image was not built (previous test)');
    return;
  }
  const container = (await run(BUILDAH, ['from', '--pull-never', IMAGE])).stdout.trim();
  t.teardown(() => run(BUILDAH, ['rm', container]).then(() => undefined));
  // The environment a deployment gives (compose's .env); small pools, since PostgreSQL's
  // connections are shared with every other test; the app kept off the internet (baseEnv).
  const offline = Object.fromEntries(Object.entries(baseEnv()).filter(([key]) => key.startsWith('GW__')));
  const env = {
    ...offline,
    DATABASE_URL: database.url,
    // The key this checkout's test kernel seals the project's secret under (startTestKernel).
    GW_MASTER_KEY: '0f'.repeat(32),
    BASE_URL: 'https://pay.example.com',
    LOG_LEVEL: 'info',
    GW__database__poolMax: '2',
    GW__jobs__poolMax: '2',
    GW__plugins__rates__providers: '["fixed"]',
    GW__plugins__rates__fixed: JSON.stringify(RATES),
    ...(process.env['GW_TEST_RUN'] ? { GW_TEST_RUN: process.env['GW_TEST_RUN'] } : {}),
  };

  // Who the processes run as.
  const who = runInImage(container, {}, ['id', '-un']);
  t.is(await who.exited, 0, who.output());
  t.is(who.output().trim(), 'gateway');

  // Migrations: the image's entry point `migrate`, on an empty database.
  const migrate = runInImage(container, env, ['/app/deploy/container/entrypoint.sh', 'migrate']);
  t.teardown(() => migrate.kill());
  t.is(await migrate.exited, 0, migrate.output());
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  t.teardown(() => client.end());
  const applied = Number((await client.query('select count(*) from knex_migrations')).rows[0].count);
  t.true(applied > 0, migrate.output());

  // A project with a pool, made by this checkout's kernel: it finds nothing left to migrate.
  const setup = await startTestKernel({
    plugins,
    chains,
    role: 'cli',
    database,
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': RATES, 'database.poolMax': 2, 'jobs.poolMax': 2 },
  });
  let project: { projectId: string; secret: string };
  try {
    const operator = await setup.kernel.cradle.tenancyOperators.create('container', CLI_ACTOR);
    project = await projectWithPools(setup, operator.id, ['eth'], 'testnet');
  } finally {
    await setup.close();
  }
  t.is(Number((await client.query('select count(*) from knex_migrations')).rows[0].count), applied, 'the image applied every migration of the sources');

  // The gateway: the image's entry point with its default command, on a port of this machine's
  // (host network; loopback only for the test).
  const marker = `GW_CONTAINER_TEST=${process.pid}-${Date.now()}`;
  const [markerName, markerValue] = marker.split('=') as [string, string];
  const gateway = runInImage(container, { ...env, PORT: '0', HOST: '127.0.0.1', [markerName]: markerValue }, [
    '/app/deploy/container/entrypoint.sh',
    'gateway',
  ]);
  t.teardown(() => gateway.kill());
  let url: string | undefined;
  for (let i = 0; i < 1200 && !url; i++) {
    url = /listening on (http:\/\/\S+)/.exec(gateway.output())?.[1];
    if (!url) {
      if (gateway.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  t.truthy(url, gateway.output());
  let healthz = await fetch(`${url}/healthz`).catch(() => undefined);
  const coldStartMs = performance.now() - gateway.startedAt;
  t.is(healthz?.status, 200);
  t.log(`cold start (buildah run to /healthz 200): ${Math.round(coldStartMs)} ms`);
  healthz = await fetch(`${url}/readyz`);
  t.is(healthz.status, 200, await healthz.text());
  // The healthcheck the image declares, run inside it against this gateway.
  const port = new URL(url!).port;
  const check = runInImage(container, {}, ['node', '/app/deploy/container/healthcheck.mjs', port]);
  t.is(await check.exited, 0, check.output());

  // A signed API call (the partner's HMAC over method, target, timestamp and body).
  const created = await signedFetch(url!, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: 'container-1', amount_crypto: '0.01', coin: 'eth' },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.external_id, 'container-1');
  const fetched = await signedFetch(url!, `/api/v1/invoices/${created.body.id}`, project);
  t.is(fetched.status, 200);
  t.is(fetched.body.id, created.body.id);
  const unsigned = await fetch(`${url}/api/v1/invoices/${created.body.id}`);
  t.is(unsigned.status, 401);

  // A clean stop: SIGTERM to the gateway's process, as a container runtime sends it to PID 1
  // (the entry point exec'd Node, so Node is that process).
  // The Node process with the marker in its environment (buildah gives it to what it runs).
  const nodes = processesWith(marker).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0] === 'node');
  t.is(nodes.length, 1, JSON.stringify(nodes));
  const node = nodes[0];
  t.truthy(node, 'the gateway runs as node inside buildah run');
  process.kill(node!, 'SIGTERM');
  t.is(await gateway.exited, 0, gateway.output());
  t.regex(gateway.output(), /"signal":"SIGTERM"[^\n]*"msg":"shutting down"/);
  t.log(`image size ${(built.sizeBytes / 1e6).toFixed(0)} MB; cold start ${Math.round(coldStartMs)} ms`);
});

test('the compose file passes docker-compose’s schema and runs migrations once before the gateway and the worker', async (t) => {
  t.true(existsSync(DOCKER_COMPOSE), `${DOCKER_COMPOSE} is missing (Debian package docker-compose; .ci/run installs it)`);
  // The compose file as an operator has it: beside a .env made from the example.
  const dir = mkdtempSync(join(tmpdir(), 'gw-compose-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const project = join(dir, 'deploy/container');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'compose.yaml'), readFileSync(join(CONTAINER_DIR, 'compose.yaml')));
  const dotEnv = readFileSync(join(CONTAINER_DIR, 'env.example'), 'utf8')
    .replace(/^POSTGRES_PASSWORD=$/m, 'POSTGRES_PASSWORD=0123abcd')
    .replace(/^GW_MASTER_KEY=$/m, `GW_MASTER_KEY=${'ab'.repeat(32)}`);
  writeFileSync(join(project, '.env'), dotEnv);
  const compose = await run(DOCKER_COMPOSE, ['--project-directory', project, '--file', join(project, 'compose.yaml'), 'config'], process.env);
  // docker-compose prints the resolved file; its YAML read by PyYAML (docker-compose's own parser).
  writeFileSync(join(dir, 'resolved.yaml'), compose.stdout);
  const parse = (
    await run(PYTHON3, ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)', join(dir, 'resolved.yaml')], process.env)
  ).stdout;
  const config = JSON.parse(parse) as {
    services: Record<
      string,
      {
        image?: string;
        command?: string[];
        build?: { context: string; dockerfile: string };
        depends_on?: Record<string, { condition: string }>;
        environment?: Record<string, string>;
        volumes?: string[];
        restart?: string;
        healthcheck?: { test: string[] };
      }
    >;
    volumes: Record<string, unknown>;
  };
  const { db, migrate, gateway, worker } = config.services;
  t.deepEqual(Object.keys(config.services).sort(), ['db', 'gateway', 'migrate', 'worker']);
  // PostgreSQL keeps its data in a named volume.
  t.true(db!.volumes!.includes('pgdata:/var/lib/postgresql/data:rw'));
  t.true('pgdata' in config.volumes);
  // The migrations run once, after the database is healthy, and both apps wait for them to succeed.
  t.deepEqual(migrate!.command, ['migrate']);
  t.is(migrate!.restart, 'no');
  t.deepEqual(migrate!.depends_on, { db: { condition: 'service_healthy' } });
  for (const app of [gateway!, worker!]) t.deepEqual(app.depends_on, { migrate: { condition: 'service_completed_successfully' } });
  t.deepEqual(gateway!.command, ['gateway']);
  t.deepEqual(worker!.command, ['worker']);
  // One image for the three; its build is the repository's Containerfile.
  t.is(new Set([migrate!.image, gateway!.image, worker!.image]).size, 1);
  t.is(resolve(gateway!.build!.context, gateway!.build!.dockerfile), join(dir, 'deploy/container/Containerfile'));
  t.true(existsSync(join(ROOT, 'deploy/container/Containerfile')));
  // The worker's healthcheck asks its own health port.
  t.is(worker!.environment!['WORKER_PORT'], worker!.healthcheck!.test.at(-1));
  // The apps' environment is one the gateway's configuration loads (the database is compose's).
  for (const app of [migrate!, gateway!, worker!]) {
    t.is(app.environment!['DATABASE_URL'], 'postgres://gateway:0123abcd@db:5432/gateway');
    const appEnv = Object.fromEntries(Object.entries(app.environment!).filter(([key]) => !COMPOSE_ONLY.includes(key)));
    t.is(loadConfig({ env: appEnv, file: false }).database.url, 'postgres://gateway:0123abcd@db:5432/gateway');
  }
});

test('the compose example environment holds only keys the configuration accepts, besides compose’s own', (t) => {
  const env = exampleEnv();
  t.deepEqual(
    Object.keys(env).filter((name) => !isConfigEnvName(name)),
    COMPOSE_ONLY,
    'every other name is read by the configuration',
  );
  const config = loadConfig({ env: { ...env, GW_MASTER_KEY: 'ab'.repeat(32) }, file: false });
  t.is(config.http.trustProxy, true);
  t.is(config.http.baseUrl, 'https://pay.example.com');
});

test('the build context leaves out what installs, builds and tests leave behind', (t) => {
  const ignore = readFileSync(join(ROOT, '.containerignore'), 'utf8');
  // Docker reads .dockerignore, buildah and podman .containerignore: the same file.
  t.is(readFileSync(join(ROOT, '.dockerignore'), 'utf8'), ignore);
  const patterns = ignore.split('\n').filter((line) => line && !line.startsWith('#'));
  for (const pattern of ['.git', '**/node_modules', '**/dist', '.data', 'deploy/container/.env']) t.true(patterns.includes(pattern), pattern);
});
