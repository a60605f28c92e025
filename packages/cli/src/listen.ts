/**
 * `gateway listen --forward-to <url>`: follows the project's event stream and POSTs each event to
 * a local URL signed exactly as the gateway's delivery is, printing one line per event. The cursor
 * (the last event forwarded) is saved after each event, so a restart resumes right after it: an
 * event is skipped never, and forwarded twice only when the process died between forwarding and
 * saving (same event_id, which receivers deduplicate anyway).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  DELIVERY_ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  GatewayConnectionError,
  GatewayError,
  SIGNATURE_HEADER,
  signWebhook,
  WEBHOOK_USER_AGENT,
  type GatewayClient,
} from '@gw/client';
import { PartnerUsageError, type PartnerCredentials } from './credentials.js';
import type { PartnerContext } from './partner-cli.js';

const FORWARD_TIMEOUT_MS = 10_000;
/** Pause before asking again after the gateway could not be reached (restarting, draining). */
const UNREACHABLE_PAUSE_MS = 5_000;

interface StreamItem {
  readonly event_id: string;
  readonly event_type: string;
  readonly invoice_id: string | null;
  readonly body: string;
}

export async function runListen(
  gateway: GatewayClient,
  credentials: PartnerCredentials,
  values: Record<string, string | boolean | undefined>,
  context: PartnerContext,
  json: boolean,
): Promise<number> {
  const { io } = context;
  const forwardTo = values['forward-to'];
  if (typeof forwardTo !== 'string') throw new PartnerUsageError('missing required flag --forward-to <url>');
  let target: URL;
  try {
    target = new URL(forwardTo);
  } catch {
    throw new PartnerUsageError(`--forward-to "${forwardTo}" is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new PartnerUsageError('--forward-to must be an http or https URL');
  const wait = typeof values['wait'] === 'string' ? Number(values['wait']) : 20;
  if (!Number.isInteger(wait) || wait < 0 || wait > 25) throw new PartnerUsageError('--wait must be a whole number of seconds from 0 to 25');
  const statePath = typeof values['state'] === 'string' ? values['state'] : join(configHome(context.env), 'gateway', `listen-${credentials.projectId}.cursor`);

  const project = await gateway.project();
  const stream = (query: { after?: string; start?: 'earliest' | 'latest'; wait?: number; limit?: number }) => gateway.webhooks.stream(query);

  let cursor = typeof values['since'] === 'string' ? values['since'] : readCursor(statePath);
  if (cursor === undefined) cursor = (await stream({ start: 'latest' })).next_cursor;
  if (!json)
    io.err(
      `listening for ${project.kind} project ${project.id} events, forwarding to ${target.href} (cursor ${cursor ?? 'start'}, saved in ${statePath}); Ctrl-C to stop`,
    );

  const stop = context.stopSignal;
  while (!stop?.aborted) {
    let page: { items: readonly StreamItem[]; next_cursor?: string };
    try {
      page = await stream({ ...(cursor === undefined ? { start: 'earliest' as const } : { after: cursor }), wait, limit: 50 });
    } catch (error) {
      if (error instanceof GatewayError && error.errorCode === 'event_not_found') {
        throw new PartnerUsageError(
          `the saved cursor ${cursor} is not an event of this project any more (a sandbox reset?); remove ${statePath} or pass --since`,
        );
      }
      // A gateway restarting or draining: keep the cursor and ask again; anything else stops.
      if (error instanceof GatewayConnectionError || (error instanceof GatewayError && (error.status === 503 || error.status === 429))) {
        io.err(`gateway not reachable (${error.message}); asking again in ${UNREACHABLE_PAUSE_MS / 1000} s`);
        await pause(UNREACHABLE_PAUSE_MS, stop);
        continue;
      }
      throw error;
    }
    for (const event of page.items) {
      const outcome = await forward(target, event, credentials.apiSecret);
      io.out(
        json ? JSON.stringify({ event_id: event.event_id, event_type: event.event_type, invoice_id: event.invoice_id, ...outcome }) : line(event, outcome),
      );
      cursor = event.event_id;
      saveCursor(statePath, cursor);
    }
  }
  return 0;
}

async function forward(target: URL, event: StreamItem, secret: string): Promise<{ status: number | null; error?: string; ms: number }> {
  const started = Date.now();
  try {
    const response = await fetch(target, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        // The headers of a delivery (plugins/webhooks webhook-sender.ts), by the wire contract's names.
        'user-agent': WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: await signWebhook({ secrets: [secret], rawBody: event.body, timestamp: Math.floor(Date.now() / 1000) }),
        [EVENT_ID_HEADER]: event.event_id,
        [EVENT_TYPE_HEADER]: event.event_type,
        [DELIVERY_ATTEMPT_HEADER]: '1',
      },
      body: event.body,
    });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  } catch (error) {
    return { status: null, error: (error as Error).message, ms: Date.now() - started };
  }
}

function line(event: StreamItem, outcome: { status: number | null; error?: string; ms: number }): string {
  const answer = outcome.status === null ? `failed: ${outcome.error}` : `${outcome.status}`;
  return `${new Date().toISOString()}  ${event.event_type.padEnd(25)} ${event.event_id}  invoice ${event.invoice_id ?? '-'}  -> ${answer} (${outcome.ms} ms)`;
}

function pause(ms: number, stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    stop?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      resolve();
    }
  });
}

function configHome(env: NodeJS.ProcessEnv): string {
  return env['XDG_CONFIG_HOME'] ?? join(env['HOME'] ?? '.', '.config');
}

function readCursor(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Written to a temporary file and renamed, so a crash leaves the old cursor or the new one. */
function saveCursor(path: string, cursor: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${cursor}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
