/**
 * Runs one step of `php/woocommerce-sequence.php` (the WooCommerce plugin's calls through BTCPay's
 * PHP client) with Debian's php-cli, which .ci/run installs with php-curl, and returns what it printed.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { btcpayPeersDir } from '@gw/plugin-btcpay/testing';

/** Debian's php-cli. */
export const PHP = '/usr/bin/php';

const SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'php', 'woocommerce-sequence.php');

/** The steps of the script (its header describes each). */
export type WooStep =
  | 'authorize-url'
  | 'connect'
  | 'register-webhook'
  | 'webhook-recheck'
  | 'checkout'
  | 'order-payments'
  | 'mark-invalid'
  | 'refund'
  | 'refund-invoice'
  | 'webhooks'
  | 'bad-input';

/** What a step calls with: the BTCPay URL the shop was given, its key, what it stored before. */
export interface WooStepContext {
  readonly url: string;
  readonly key: string;
  readonly input?: Record<string, unknown>;
}

/** A step's printed JSON; throws with the client's exception (class, status, body) when the step failed. */
export function runWooStep(step: WooStep, context: WooStepContext): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      PHP,
      [SCRIPT, step],
      {
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          GREENFIELD_PHP: join(btcpayPeersDir(), 'greenfield-php'),
          BTCPAY_URL: context.url,
          BTCPAY_KEY: context.key,
          STEP_INPUT: JSON.stringify(context.input ?? {}),
        },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        let printed: any;
        try {
          printed = JSON.parse(stdout);
        } catch {
          reject(new Error(`php ${step}: no JSON on stdout (${error ? String(error) : 'exit 0'})\nstdout: ${stdout}\nstderr: ${stderr}`));
          return;
        }
        if (error || printed?.uncaught) {
          reject(new Error(`php ${step}: the client threw ${JSON.stringify(printed?.uncaught ?? printed, null, 2)}\nstderr: ${stderr}`));
          return;
        }
        resolve(printed);
      },
    );
  });
}
