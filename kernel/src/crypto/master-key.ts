import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config/config-error.js';
import type { KernelConfig } from '../config/kernel-config.js';

/**
 * The master key from config. Only in development chosen explicitly (GW_ENV=development), when
 * none is configured, is a key generated once into a git-ignored project-local file so a local
 * trial starts with no setup; otherwise (production, or `env` not set) start-up stops without
 * `security.masterKey` (GW_MASTER_KEY): a key kept beside the embedded database's data protects
 * nothing once the disk or a backup of it leaks (issue 26 finding 4).
 */
/** `security.previousMasterKeys` as a list (empty when unset). */
export function previousMasterKeys(config: KernelConfig): string[] {
  return (config.security.previousMasterKeys ?? '')
    .split(',')
    .filter((k) => k !== '')
    .map((k) => k.toLowerCase());
}

export function resolveMasterKey(config: KernelConfig): string {
  if (config.security.masterKey) return config.security.masterKey.toLowerCase();
  if (config.env === 'production') {
    throw new ConfigError('missing key security.masterKey (GW_MASTER_KEY): production needs a 64-hex AES-256 master key');
  }
  if (config.env !== 'development') {
    throw new ConfigError(
      'missing key security.masterKey (GW_MASTER_KEY): env is not set, so production rules apply and no master key is generated. ' +
        'Set GW_MASTER_KEY to 64 hex characters kept outside the data folder, or GW_ENV=development for a local trial (generates .data/master.key).',
    );
  }
  const file = resolve(config.security.masterKeyFile);
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(key)) throw new ConfigError(`invalid value for security.masterKeyFile: ${file} does not hold 64 hex characters`);
    return key.toLowerCase();
  }
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32).toString('hex');
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another instance created it first; use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim().toLowerCase();
    throw error;
  }
  return key;
}
