import { btcpayErrors } from '../errors.js';

/** A webhook as a create or update gives it (BTCPay's `WebhookDataCreate` / `WebhookDataUpdate`), defaults applied. */
export interface WebhookInput {
  readonly enabled: boolean;
  readonly automaticRedelivery: boolean;
  readonly url: string;
  readonly authorizedEvents: { readonly everything: boolean; readonly specificEvents: readonly string[] };
  /** The secret given; null when left out, null or empty (a create generates one, an update keeps the current one). */
  readonly secret: string | null;
}

/** Limits BTCPay leaves open, so a body cannot grow a row without bound. */
export const WEBHOOK_LIMITS = { secretLength: 256, specificEvents: 64, eventTypeLength: 100 } as const;

interface Issue {
  readonly path: string;
  readonly message: string;
}

/**
 * Reads a webhook create or update body as BTCPay binds it: every field optional but `url`
 * (`enabled`, `automaticRedelivery` and `authorizedEvents.everything` default to true,
 * `specificEvents` to none), unknown fields ignored; a PUT is a whole replacement, so a field left
 * out takes its default there too. `url` must be an absolute URL (the target rules are checked by
 * the caller, who knows the project). Every problem is listed in one 422 `btcpay_validation_failed`
 * (BTCPay's `[{ path, message }]`).
 */
export function readWebhookInput(body: unknown): WebhookInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw btcpayErrors.btcpay_validation_failed({
      message: 'The request body must be a JSON object.',
      details: { errors: [{ path: '', message: 'The request body must be a JSON object.' }] },
    });
  }
  const given = body as Record<string, unknown>;
  const issues: Issue[] = [];
  const flag = (path: string, value: unknown): boolean => {
    if (value === undefined) return true;
    if (typeof value === 'boolean') return value;
    issues.push({ path, message: `${path} must be true or false.` });
    return true;
  };
  const enabled = flag('enabled', given['enabled']);
  const automaticRedelivery = flag('automaticRedelivery', given['automaticRedelivery']);
  const url = typeof given['url'] === 'string' ? given['url'].trim() : '';
  if (!isAbsoluteUrl(url)) issues.push({ path: 'url', message: 'Invalid Url' });
  let everything = true;
  let specificEvents: string[] = [];
  const events = given['authorizedEvents'];
  if (events !== undefined && events !== null) {
    if (typeof events !== 'object' || Array.isArray(events)) {
      issues.push({ path: 'authorizedEvents', message: 'authorizedEvents must be an object.' });
    } else {
      const record = events as Record<string, unknown>;
      everything = flag('authorizedEvents.everything', record['everything']);
      const specific = record['specificEvents'];
      if (specific !== undefined && specific !== null) {
        if (!Array.isArray(specific) || !specific.every((e): e is string => typeof e === 'string')) {
          issues.push({ path: 'authorizedEvents.specificEvents', message: 'specificEvents must be a list of event types.' });
        } else if (specific.length > WEBHOOK_LIMITS.specificEvents || specific.some((e) => e.length === 0 || e.length > WEBHOOK_LIMITS.eventTypeLength)) {
          issues.push({
            path: 'authorizedEvents.specificEvents',
            message: `specificEvents takes at most ${WEBHOOK_LIMITS.specificEvents} event types of 1 to ${WEBHOOK_LIMITS.eventTypeLength} characters.`,
          });
        } else {
          specificEvents = [...new Set(specific)];
        }
      }
    }
  }
  let secret: string | null = null;
  const givenSecret = given['secret'];
  if (givenSecret !== undefined && givenSecret !== null) {
    if (typeof givenSecret !== 'string') issues.push({ path: 'secret', message: 'secret must be a string.' });
    else if (givenSecret.length > WEBHOOK_LIMITS.secretLength)
      issues.push({ path: 'secret', message: `secret is longer than ${WEBHOOK_LIMITS.secretLength} characters.` });
    else if (givenSecret.length > 0) secret = givenSecret;
  }
  if (issues.length > 0) throw btcpayErrors.btcpay_validation_failed({ message: issues[0]!.message, details: { errors: issues } });
  return { enabled, automaticRedelivery, url, authorizedEvents: { everything, specificEvents }, secret };
}

/** Whether `value` parses as an absolute URL (BTCPay's `Uri.TryCreate(..., Absolute)`). */
function isAbsoluteUrl(value: string): boolean {
  if (value.length === 0) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
