/**
 * Where the partner commands (`gateway api`, `trigger`, `listen`) get a project's credentials:
 * flags, else environment, else a JSON credentials file that only its owner may read.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface PartnerCredentials {
  readonly url: string;
  readonly projectId: string;
  readonly apiSecret: string;
  /** Where each value came from, for messages. */
  readonly source: string;
}

/** A usage problem the CLI prints as `error usage: ...` with exit code 2. */
export class PartnerUsageError extends Error {}

/** The credentials file: `{"url": ..., "project_id": ..., "api_secret": ...}`, mode 0600. */
export function defaultCredentialsPath(env: NodeJS.ProcessEnv): string {
  return env['GATEWAY_CREDENTIALS_FILE'] ?? join(env['XDG_CONFIG_HOME'] ?? join(env['HOME'] ?? homedir(), '.config'), 'gateway', 'credentials.json');
}

/**
 * Resolves each of url, project id and secret from, in order: `--url`, `--project-id`,
 * `--api-secret` flags; `GATEWAY_URL`, `GATEWAY_PROJECT_ID`, `GATEWAY_API_SECRET`; the credentials
 * file (`--credentials <path>`, `$GATEWAY_CREDENTIALS_FILE`, else
 * `$XDG_CONFIG_HOME/gateway/credentials.json`). A file readable or writable by group or others is
 * refused (as ssh refuses such a key), since it holds the API secret.
 */
export function resolveCredentials(flags: Readonly<Record<string, string | undefined>>, env: NodeJS.ProcessEnv): PartnerCredentials {
  const fromFlags = { url: flags['url'], projectId: flags['project-id'], apiSecret: flags['api-secret'] };
  const fromEnv = { url: env['GATEWAY_URL'], projectId: env['GATEWAY_PROJECT_ID'], apiSecret: env['GATEWAY_API_SECRET'] };
  const explicitFile = flags['credentials'];
  const path = explicitFile ?? defaultCredentialsPath(env);
  const needFile = !(pick('url') && pick('projectId') && pick('apiSecret'));
  const fromFile = needFile ? readCredentialsFile(path, explicitFile !== undefined || env['GATEWAY_CREDENTIALS_FILE'] !== undefined) : {};
  const url = pick('url') ?? fromFile.url;
  const projectId = pick('projectId') ?? fromFile.projectId;
  const apiSecret = pick('apiSecret') ?? fromFile.apiSecret;
  const missing = [
    !url && 'url (--url, GATEWAY_URL)',
    !projectId && 'project id (--project-id, GATEWAY_PROJECT_ID)',
    !apiSecret && 'API secret (--api-secret, GATEWAY_API_SECRET)',
  ].filter(Boolean);
  if (missing.length > 0) throw new PartnerUsageError(`missing ${missing.join(', ')}; or put them in ${path} ({"url", "project_id", "api_secret"}, mode 0600)`);
  return { url: url!, projectId: projectId!, apiSecret: apiSecret!, source: needFile ? path : 'flags and environment' };

  function pick(key: 'url' | 'projectId' | 'apiSecret'): string | undefined {
    return fromFlags[key] || fromEnv[key] || undefined;
  }
}

function readCredentialsFile(path: string, required: boolean): { url?: string; projectId?: string; apiSecret?: string } {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    if (required) throw new PartnerUsageError(`credentials file ${path} does not exist`);
    return {};
  }
  if ((mode & 0o077) !== 0) {
    throw new PartnerUsageError(`credentials file ${path} is accessible by group or others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PartnerUsageError(`credentials file ${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new PartnerUsageError(`credentials file ${path} must hold a JSON object`);
  const record = parsed as Record<string, unknown>;
  const text = (key: string) => (typeof record[key] === 'string' && record[key] !== '' ? (record[key] as string) : undefined);
  const out: { url?: string; projectId?: string; apiSecret?: string } = {};
  const url = text('url');
  const projectId = text('project_id');
  const apiSecret = text('api_secret');
  if (url) out.url = url;
  if (projectId) out.projectId = projectId;
  if (apiSecret) out.apiSecret = apiSecret;
  return out;
}
