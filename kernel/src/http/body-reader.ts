import type { Middleware } from 'koa';
import { coreErrors } from '../errors/core-errors.js';

declare module 'koa' {
  interface Request {
    /** The exact bytes of the body as UTF-8 text ('' when there is none); signatures cover this. */
    rawBody: string;
    /** Parsed JSON or form body; undefined when the body is empty. */
    body?: unknown;
  }
}

/**
 * Reads the whole body up to `limit` bytes (413 beyond it, checked while streaming so a huge body is
 * never buffered), keeps the raw text for signature checks, then parses JSON or
 * `application/x-www-form-urlencoded`. Malformed JSON is 400 `validation_error`; any other content
 * type with a body is 415.
 */
export function bodyReaderMiddleware(limit: number): Middleware {
  return async (ctx, next) => {
    ctx.request.rawBody = '';
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') {
      await next();
      return;
    }
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > limit) throw coreErrors.payload_too_large({ details: { limit_bytes: limit } });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        ctx.req.unpipe();
        ctx.req.resume();
        throw coreErrors.payload_too_large({ details: { limit_bytes: limit } });
      }
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    ctx.request.rawBody = raw;
    if (raw.length > 0) {
      const type = ctx.request.is('application/json', 'application/*+json', 'application/x-www-form-urlencoded');
      if (type === 'application/x-www-form-urlencoded') {
        ctx.request.body = Object.fromEntries(new URLSearchParams(raw));
      } else if (type) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw coreErrors.validation_error({ message: 'The request body is not valid JSON.', details: { field: 'body' } });
        }
        // Everything after this (validation, hashing, storage) walks the body recursively.
        if (deeperThan(parsed, MAX_JSON_DEPTH)) {
          throw coreErrors.validation_error({ message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, details: { field: 'body' } });
        }
        ctx.request.body = parsed;
      } else {
        throw coreErrors.unsupported_media_type();
      }
    }
    await next();
  };
}

/** How deep objects and arrays may nest in a JSON body. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests objects/arrays more than `max` levels deep (iterative: any depth is safe to ask). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
