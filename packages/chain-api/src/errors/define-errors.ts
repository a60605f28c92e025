import { AppError } from './app-error.js';

/** One catalogued error: its HTTP status and the default human message. */
export interface ErrorSpec {
  status: number;
  message: string;
  /** Seconds for `Retry-After` when the thrower does not give one (429/503 codes). */
  retryAfter?: number;
}

/** Options a thrower may add to a catalogued error. */
export interface ErrorOptions {
  message?: string;
  details?: Record<string, unknown>;
  retryAfter?: number;
  cause?: unknown;
}

export type ErrorFactory = ((options?: ErrorOptions) => AppError) & {
  readonly code: string;
  readonly spec: ErrorSpec;
};

export type ErrorCatalogue<T extends Record<string, ErrorSpec>> = {
  readonly [K in keyof T]: ErrorFactory;
} & { readonly [catalogueMarker]: { owner: string; entries: Record<string, ErrorSpec> } };

const catalogueMarker = Symbol.for('gw.errorCatalogue');

/**
 * Declares an owner's error codes. Each key becomes a factory: `errors.invoice_not_found()` returns
 * an AppError with the catalogued status and message. Catalogues are collected by the kernel to
 * generate `docs/errors.md` and to refuse two owners declaring the same code differently.
 */
export function defineErrors<T extends Record<string, ErrorSpec>>(owner: string, entries: T): ErrorCatalogue<T> {
  const out: Record<string | symbol, unknown> = {};
  for (const [code, spec] of Object.entries(entries)) {
    const factory = (options: ErrorOptions = {}) =>
      new AppError({
        code,
        status: spec.status,
        message: options.message ?? spec.message,
        details: options.details,
        retryAfter: options.retryAfter ?? spec.retryAfter,
        cause: options.cause,
      });
    Object.defineProperty(factory, 'code', { value: code });
    Object.defineProperty(factory, 'spec', { value: spec });
    out[code] = factory;
  }
  out[catalogueMarker] = { owner, entries };
  return out as ErrorCatalogue<T>;
}

/** The owner and entries of a catalogue, for documentation and duplicate checks. */
export function describeCatalogue(catalogue: ErrorCatalogue<Record<string, ErrorSpec>>): {
  owner: string;
  entries: Record<string, ErrorSpec>;
} {
  return catalogue[catalogueMarker];
}
