import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { KernelConfigSchema, type KernelConfig } from './kernel-config.js';
import { validateConfig } from './validate-config.js';

/** Environment variables with a fixed meaning (besides the generic `GW__a__b=value` form). */
const WELL_KNOWN_ENV: Record<string, string[]> = {
  PORT: ['http', 'port'],
  HOST: ['http', 'host'],
  BASE_URL: ['http', 'baseUrl'],
  DATABASE_URL: ['database', 'url'],
  LOG_LEVEL: ['log', 'level'],
  GW_MASTER_KEY: ['security', 'masterKey'],
  GW_ENV: ['env'],
  GW_METRICS_TOKEN: ['http', 'metricsToken'],
  WORKER_PORT: ['worker', 'http', 'port'],
  GW_DATABASE_LISTEN_URL: ['database', 'listenUrl'],
  GW_PREVIOUS_MASTER_KEYS: ['security', 'previousMasterKeys'],
};

/**
 * Whether `loadConfig` reads the environment variable `name`. Every other name is ignored, so a
 * misspelled `BASE_URLL` changes nothing: checks of environment files ask this.
 */
export function isConfigEnvName(name: string): boolean {
  return Object.hasOwn(WELL_KNOWN_ENV, name) || name === 'GW_CONFIG' || name === 'GW_DISABLED_PLUGINS' || (name.startsWith('GW__') && name.length > 4);
}

export interface LoadConfigOptions {
  /** Environment to read; defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Config file; defaults to $GW_CONFIG, else ./gateway.config.json when it exists; false: none. */
  readonly file?: string | false;
  /** Values applied last (tests). */
  readonly overrides?: Record<string, unknown>;
}

/**
 * Reads the config file, then environment variables, then overrides, and validates the kernel
 * part. Plugin slices are validated later by the loader, which knows the plugins' schemas.
 *
 * Environment: the well-known names above, `GW_DISABLED_PLUGINS=a,b`, and the generic
 * `GW__<path>__<to>__<key>=value` (value parsed as JSON when it parses, else taken as a string),
 * e.g. `GW__plugins__sandbox__enabled=false`.
 */
export function loadConfig(options: LoadConfigOptions = {}): KernelConfig {
  const env = options.env ?? process.env;
  const raw: Record<string, unknown> = {};
  const file =
    options.file === false ? undefined : (options.file ?? env['GW_CONFIG'] ?? (existsSync('gateway.config.json') ? 'gateway.config.json' : undefined));
  if (file !== undefined) {
    const path = resolve(file);
    if (!existsSync(path)) throw new ConfigError(`Config file ${path} (GW_CONFIG) does not exist`);
    try {
      Object.assign(raw, JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      throw new ConfigError(`Config file ${path} is not valid JSON: ${(error as Error).message}`);
    }
  }
  for (const [name, path] of Object.entries(WELL_KNOWN_ENV)) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(raw, path, value);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GW__') || value === undefined) continue;
    const path = name.slice(4).split('__').filter(Boolean);
    if (path.length === 0) throw new ConfigError(`Environment variable ${name} names no config key`);
    setPath(raw, path, parseEnvValue(value));
  }
  const disabled = env['GW_DISABLED_PLUGINS'];
  if (disabled) {
    for (const id of disabled
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      setPath(raw, ['plugins', id, 'enabled'], false);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) setPath(raw, key.split('.'), value);
  return validateConfig<KernelConfig>(KernelConfigSchema, raw, '');
}

function parseEnvValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}
