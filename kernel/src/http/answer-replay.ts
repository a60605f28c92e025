import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';

/** A response as recorded for identical copies of a signed request. */
export interface RecordedAnswer {
  readonly status: number;
  /** Response headers worth repeating (lowercase names); per-request ones are left out. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * How an authenticator answers identical copies of one signed request (same signature, same
 * target), handed to the kernel on `AuthContext.replay` (docs/decisions.md, "Signing forms and
 * repeated signed requests").
 */
export interface AnswerReplay {
  /** The recorded answer of an earlier copy: the kernel sends it and does not run the route. */
  readonly earlier?: RecordedAnswer;
  /**
   * Called once the response is final with this copy's answer, or `undefined` when it is not to
   * be repeated (5xx, 429, a stream). Returns the answer to send instead of this copy's: the one
   * an identical copy recorded first.
   */
  settle(answer: RecordedAnswer | undefined): Promise<RecordedAnswer | undefined>;
}

/** Set on an answer that repeats an earlier copy's (docs/decisions.md). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const STATE_KEY = 'answerReplay';

// Transport headers: a repeated answer carries its own. `X-Request-Id` is repeated: the answer
// names the request that had the effect, as its body does (an error's `request_id`), so it finds
// that request's log lines and audit entries.
const NOT_REPEATED = new Set([
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'set-cookie',
  'retry-after',
  REPLAYED_HEADER.toLowerCase(),
]);

/** Remembers the replay handle of the request for `answerReplayMiddleware`. */
export function attachAnswerReplay(ctx: Context, replay: AnswerReplay): void {
  ctx.state[STATE_KEY] = replay;
}

/** Writes a recorded answer as this request's response. */
export function sendRecordedAnswer(ctx: Context, answer: RecordedAnswer): void {
  for (const name of Object.keys(ctx.response.headers)) {
    const lower = name.toLowerCase();
    if (!NOT_REPEATED.has(lower) && lower !== 'x-request-id') ctx.remove(name);
  }
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.set(REPLAYED_HEADER, 'true');
  if (answer.status === 204 || answer.status === 304) ctx.body = null;
  else ctx.body = answer.body;
}

/**
 * Outside the error middleware, so it sees the final response (errors rendered): hands it to the
 * request's replay handle, and sends the first copy's answer when the handle returns one. A
 * failure to record is logged, not answered: the route has run and its answer is true.
 */
export function answerReplayMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    await next();
    const replay = ctx.state[STATE_KEY] as AnswerReplay | undefined;
    if (!replay) return;
    let answer: RecordedAnswer | undefined;
    try {
      answer = captureAnswer(ctx);
    } catch (err) {
      // Koa cannot send such a body either (a 500 follows); the copy is released to run again.
      logger.warn({ err, requestId: ctx.state['requestId'] }, "a signed request's answer could not be serialised");
    }
    let first: RecordedAnswer | undefined;
    try {
      first = await replay.settle(answer);
    } catch (err) {
      logger.warn({ err, requestId: ctx.state['requestId'] }, "recording a signed request's answer failed");
      return;
    }
    if (first) sendRecordedAnswer(ctx, first);
  };
}

/** A body Koa would send as JSON (not bytes, text, a stream, a Blob or a fetch Response). */
function isSerialisedObject(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return false;
  return !(body instanceof Blob || body instanceof ReadableStream || body instanceof Response);
}

/**
 * This response as a recorded answer, or `undefined` when a copy must run again rather than repeat
 * it: a 5xx or 429 had no effect (the transaction rolled back, nothing ran) and invites a retry; a
 * streamed body is not kept. An object body is serialised here, once: the response then sends these
 * bytes (its JSON content type is already set) instead of Koa serialising it again.
 */
function captureAnswer(ctx: Context): RecordedAnswer | undefined {
  if (ctx.status >= 500 || ctx.status === 429) return undefined;
  const raw: unknown = ctx.body;
  let body: Buffer;
  if (raw === undefined || raw === null) body = Buffer.alloc(0);
  else if (Buffer.isBuffer(raw)) body = raw;
  else if (typeof raw === 'string') body = Buffer.from(raw, 'utf8');
  else if (isSerialisedObject(raw)) {
    body = Buffer.from(JSON.stringify(raw), 'utf8');
    ctx.body = body;
  } else return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.response.headers)) {
    const lower = name.toLowerCase();
    if (NOT_REPEATED.has(lower) || lower.startsWith('x-ratelimit') || lower.startsWith('ratelimit') || value === undefined) continue;
    headers[lower] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { status: ctx.status, headers, body };
}
