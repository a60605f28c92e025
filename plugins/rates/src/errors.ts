import { coreErrors, defineErrors, type ErrorSpec, isAppError } from '@gw/kernel';

/** Seconds a client is told to wait before retrying after a rate was unavailable. */
export const RATE_UNAVAILABLE_RETRY_AFTER = 30;

/**
 * The 503 `rate_quote_unavailable` that the catalogues of the plugins answering a missing rate so
 * declare (sandbox, sessions, payouts): one spec, so every owner answers the same.
 */
export const RATE_QUOTE_UNAVAILABLE: ErrorSpec = {
  status: 503,
  message: 'No exchange-rate quote can be had right now; retry after the delay in Retry-After.',
  retryAfter: RATE_UNAVAILABLE_RETRY_AFTER,
};

/**
 * The error `quote()` throws when no provider answered with a fresh price and no cached quote is
 * younger than `maxAgeSeconds`: spec section 7's 500 `internal_error` ("includes cold-start rate
 * unavailability"), not an error of the plugin's own catalogue. `details.reason` tells it apart
 * from other internal errors (see {@link isRateUnavailable}); routes that answer differently (the
 * sandbox's 503 `rate_quote_unavailable`) translate it.
 */
export function rateUnavailable(asset: string, maxAgeSeconds: number, cause?: unknown) {
  return coreErrors.internal_error({
    message: `No USD rate for ${asset}: no provider reachable and no cached quote newer than ${maxAgeSeconds} s.`,
    details: { reason: 'rate_unavailable', asset },
    retryAfter: RATE_UNAVAILABLE_RETRY_AFTER,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Whether `error` is the rate-unavailable error of `RateService.quote()`: an AppError with code
 * `internal_error` and `details.reason === 'rate_unavailable'`. Any other error, including other
 * 500s, is false.
 */
export function isRateUnavailable(error: unknown): boolean {
  return isAppError(error) && error.code === 'internal_error' && error.details?.['reason'] === 'rate_unavailable';
}

/** Errors of the rates plugin's operator actions. */
export const ratesErrors = defineErrors('rates', {
  held_rate_not_found: { status: 404, message: 'No rate of this asset is held back.' },
});
