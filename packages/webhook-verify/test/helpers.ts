/**
 * Test helpers: ULIDs, envelopes, raw HTTP posts, and running the receivers of docs/webhooks.md as
 * child processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebhookEnvelope, WebhookEventType } from '../src/index.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (Crockford base32, 48-bit time then 80 random bits). */
export function ulid(time = Date.now()): string {
  let head = '';
  let rest = time;
  for (let i = 0; i < 10; i += 1) {
    head = CROCKFORD[rest % 32] + head;
    rest = Math.floor(rest / 32);
  }
  let tail = '';
  for (let i = 0; i < 16; i += 1) tail += CROCKFORD[randomInt(32)];
  return head + tail;
}

/** A realistic envelope (pretty-printed bodies and non-ASCII metadata exercise raw-body handling). */
export function envelope(eventType: WebhookEventType = 'invoice.paid', eventId = ulid()): WebhookEnvelope {
  const invoiceId = ulid();
  return {
    event_id: eventId,
    event_type: eventType,
    mode: 'testnet',
    created_at_iso: new Date().toISOString(),
    data: {
      invoice_id: invoiceId,
      external_id: 'order-10482',
      status: 'paid',
      previous_status: 'detected',
      invoice: {
        id: invoiceId,
        coin: 'btc',
        amount_crypto: '0.00153847',
        status: 'paid',
        metadata: { customer: 'Zoë Ångström ✓', note: 'emoji 🚀 and "quotes"' },
        transactions: [],
        confirmations: 2,
      },
    },
  };
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export interface PostResult {
  readonly status: number;
  readonly body: unknown;
}

/** POSTs `body` (exact bytes) to 127.0.0.1:`port` with no connection reuse. */
export function post(port: number, body: string | Buffer, headers: Record<string, string | undefined> = {}, method = 'POST'): Promise<PostResult> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const sent: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': bytes.length,
    'user-agent': 'crypto-gateway-webhooks/1',
  };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/webhooks', headers: sent, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** The fenced code block between `<!-- snippet:<name> -->` and `<!-- /snippet:<name> -->`. */
export function extractSnippet(markdown: string, name: string): string {
  const start = `<!-- snippet:${name} -->`;
  const end = `<!-- /snippet:${name} -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`snippet ${name} not found`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(markdown.slice(from + start.length, to));
  if (!block?.[1]) throw new Error(`snippet ${name} has no fenced code block`);
  return block[1];
}

export const DOCS_PATH = new URL('../../../docs/webhooks.md', import.meta.url);

/** A receiver of the docs running as a child process. */
export interface RunningReceiver {
  readonly port: number;
  /** JSON lines printed so far on stdout. */
  readonly events: readonly Record<string, unknown>[];
  /** Resolves with the first printed event satisfying `predicate`, waiting for it if needed. */
  waitForEvent(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * How a receiver runs, when not as `command <file>` printing "listening on port N" (PHP's built-in
 * server, a compiled Go program): called with the temp directory and the snippet's file in it.
 */
export interface ReceiverLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  /** Its port when known beforehand (the listening line is then any line matching `ready`). */
  readonly port?: number;
  readonly ready?: RegExp;
}

/**
 * Writes `source` to a temp file named `fileName`, runs it with `command` (env WEBHOOK_SECRETS and
 * PORT=0) and waits for its "listening on port N" line on stderr. `launch` replaces the command.
 */
export async function startReceiver(
  command: string,
  fileName: string,
  source: string,
  secrets: readonly string[],
  launch?: (dir: string, file: string) => ReceiverLaunch | Promise<ReceiverLaunch>,
): Promise<RunningReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-webhook-snippet-'));
  const file = join(dir, fileName);
  writeFileSync(file, source);
  let how: ReceiverLaunch;
  try {
    how = launch ? await launch(dir, file) : { command, args: [file] };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const child: ChildProcess = spawn(how.command, [...how.args], {
    cwd: dir,
    env: { ...process.env, WEBHOOK_SECRETS: secrets.join(','), PORT: '0', PYTHONDONTWRITEBYTECODE: '1', ...how.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let stdoutRest = '';
  let exited: string | undefined;
  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdoutRest += chunk;
    let newline: number;
    while ((newline = stdoutRest.indexOf('\n')) >= 0) {
      const line = stdoutRest.slice(0, newline).trim();
      stdoutRest = stdoutRest.slice(newline + 1);
      if (line) events.push(JSON.parse(line) as Record<string, unknown>);
    }
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });
  const exitPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exited = `exited with ${code ?? signal}`;
      notify();
      resolve();
    });
  });
  child.on('error', (error) => {
    exited = `failed to start: ${error.message}`;
    notify();
  });

  /** Waits until `check` returns a value, the child exits, or `timeoutMs` passes. */
  const until = <T>(check: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const attempt = (): boolean => {
        const value = check();
        if (value !== undefined) {
          done();
          resolve(value);
          return true;
        }
        if (exited) {
          done();
          reject(new Error(`${command} ${fileName} ${exited} while waiting for ${what}; stderr:\n${stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; stderr:\n${stderr}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(waiter);
      };
      const waiter = (): void => void attempt();
      if (!attempt()) waiters.add(waiter);
    });

  const port = await until(
    () => {
      if (how.port !== undefined) return how.ready?.test(stderr) ? how.port : undefined;
      const match = /listening on port (\d+)/.exec(stderr);
      return match ? Number(match[1]) : undefined;
    },
    'the listening line',
    20_000,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });

  return {
    port,
    events,
    waitForEvent: (predicate, timeoutMs = 10_000) => until(() => events.find(predicate), 'an event line on stdout', timeoutMs),
    stop: async () => {
      if (!exited) {
        child.kill('SIGTERM');
        await exitPromise;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function readDocs(): string {
  return readFileSync(DOCS_PATH, 'utf8');
}
