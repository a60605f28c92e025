import type { Cradle } from '../container.js';
import { buildDeclared } from '../deps.js';
import type { PluginPart } from '../plugin.js';
import type { KernelConfig } from '../config/kernel-config.js';
import { isDevelopment } from '../config/run-mode.js';
import { classifyAddress } from '../net/blocked-address.js';
import type { HttpListeners } from '../http/http-listeners.js';
import type { Readiness, ReadinessCheck, ReadinessFinding, ReadinessReport, ReadinessScope } from './readiness-check.js';

export type * from './readiness-check.js';

/** Whether a URL's host is this machine: `localhost` names, or a loopback address in any of its forms. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || classifyAddress(hostname) === 'loopback';
}

/**
 * The address links are built from without a base URL, as the running gateways listen on it: their
 * recorded addresses (the CLI sees neither their PORT nor their config, issue 33 finding 9), this
 * process's own when it is one, else the configured port.
 */
async function listeningAddress(config: KernelConfig, listeners: HttpListeners | undefined): Promise<string> {
  if (listeners?.own) return listeners.own;
  const urls = [...new Set((await listeners?.list())?.map((l) => l.url) ?? [])];
  if (urls.length > 0) return urls.join(', ');
  return `http://<host>:${config.http.port} (http.port; no running gateway has recorded its address)`;
}

/**
 * The kernel's own checks: the master key and the public base URL. `listeners` (absent: only the
 * config is read) names the addresses the running gateways listen on.
 */
export function kernelReadinessChecks(config: KernelConfig, listeners?: HttpListeners): ReadinessCheck[] {
  return [
    {
      name: 'kernel.master-key',
      summary: 'A master key is configured (GW_MASTER_KEY), kept apart from the database.',
      run: async () => {
        if (config.security.masterKey) return { ok: true, detail: 'security.masterKey is set.' };
        if (isDevelopment(config)) {
          return {
            ok: false,
            severity: 'warning',
            detail: `development mode uses a generated master key in ${config.security.masterKeyFile}; production refuses to start without security.masterKey.`,
            fix: 'Generate one with `openssl rand -hex 32`, keep it outside the data folder and its backups, and set GW_MASTER_KEY.',
          };
        }
        return {
          ok: false,
          severity: 'error',
          detail: 'security.masterKey (GW_MASTER_KEY) is missing: production refuses to start without it.',
          fix: 'Set GW_MASTER_KEY to 64 hex characters (`openssl rand -hex 32`), or GW_ENV=development for a local trial.',
        };
      },
    },
    {
      name: 'kernel.base-url',
      summary: 'The public base URL is set (BASE_URL, http.baseUrl): checkout links and the OAuth and MCP addresses are built from it.',
      run: async () => {
        const base = config.http.baseUrl;
        if (base === undefined) {
          const address = await listeningAddress(config, listeners);
          if (isDevelopment(config)) return { ok: true, detail: `http.baseUrl is not set: links use ${address}, right on this machine (development).` };
          return {
            ok: false,
            severity: 'warning',
            detail: `http.baseUrl is not set: checkout_url and the OAuth and MCP addresses are built from ${address}, which payers and partners cannot reach, and every instance would hand out its own.`,
            fix: 'Set BASE_URL (http.baseUrl) to the public https:// address of the gateway, the same on every instance.',
          };
        }
        const url = new URL(base);
        if (!isDevelopment(config) && isLoopbackHost(url.hostname)) {
          return {
            ok: false,
            severity: 'warning',
            detail: `http.baseUrl is ${base}, an address of this machine: checkout_url and the OAuth and MCP addresses built from it are unreachable for payers and partners.`,
            fix: 'Set BASE_URL (http.baseUrl) to the public https:// address of the gateway, the same on every instance.',
          };
        }
        if (!isDevelopment(config) && url.protocol !== 'https:') {
          return {
            ok: false,
            severity: 'warning',
            detail: `http.baseUrl is ${base}: payers' browsers and partners would reach the gateway without TLS.`,
            fix: 'Serve the gateway behind TLS (docs/deployment.md) and set BASE_URL to its https:// address.',
          };
        }
        return { ok: true, detail: `http.baseUrl is ${base}.` };
      },
    },
  ];
}

/**
 * Runs every check (concurrently); a check that throws is reported as an error naming the failure,
 * never lost.
 */
export async function runReadinessChecks(checks: readonly ReadinessCheck[], scope?: ReadinessScope): Promise<ReadinessReport> {
  const findings = await Promise.all(
    checks.map(async (check): Promise<ReadinessFinding> => {
      try {
        const result = await check.run(scope);
        return {
          check: check.name,
          ok: result.ok,
          severity: result.ok ? null : (result.severity ?? 'error'),
          detail: result.detail,
          fix: result.ok ? null : (result.fix ?? null),
        };
      } catch (error) {
        return { check: check.name, ok: false, severity: 'error', detail: `the check failed: ${(error as Error).message}`, fix: null };
      }
    }),
  );
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  return { ready: errors === 0, errors, warnings, checks: findings };
}

/** The `readiness` kernel service over the enabled plugins: checks built once, on first use. */
export function createReadiness(cradle: Cradle, plugins: Parameters<typeof collectReadinessChecks>[1]): Readiness {
  let checks: readonly ReadinessCheck[] | undefined;
  return { checks: () => (checks ??= collectReadinessChecks(cradle, plugins)) };
}

/** Every check of the kernel and of the enabled plugins, in plugin order. */
export function collectReadinessChecks(
  cradle: Cradle,
  plugins: readonly { plugin: { id: string; readiness?: PluginPart<readonly ReadinessCheck[]> } }[],
): ReadinessCheck[] {
  return [
    ...kernelReadinessChecks(cradle.kernelConfig, cradle.httpListeners),
    ...plugins.flatMap(({ plugin }) => (plugin.readiness ? buildDeclared(plugin.readiness, cradle, `readiness of plugin "${plugin.id}"`) : [])),
  ];
}
