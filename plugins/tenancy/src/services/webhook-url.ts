import type { ProjectKind } from '@gw/kernel';
import { tenancyErrors } from '../errors.js';

/**
 * Checks a webhook target when it is set: an absolute http(s) URL without credentials or fragment,
 * at most 2048 characters, HTTPS for production projects. (Private and loopback targets are
 * refused at send time in production mode, by the webhooks plugin, because DNS can change.)
 */
export function validateWebhookUrl(value: string, kind: ProjectKind): string {
  if (value.length > 2048) throw tenancyErrors.invalid_webhook_url({ message: 'The webhook URL is longer than 2048 characters.' });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw tenancyErrors.invalid_webhook_url({ message: 'The webhook URL is not an absolute URL.' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw tenancyErrors.invalid_webhook_url({ message: 'The webhook URL must use https (or http outside production).' });
  if (kind === 'production' && url.protocol !== 'https:')
    throw tenancyErrors.invalid_webhook_url({ message: 'Production projects need an https webhook URL.' });
  if (url.username || url.password) throw tenancyErrors.invalid_webhook_url({ message: 'The webhook URL must not embed credentials.' });
  if (url.hash) throw tenancyErrors.invalid_webhook_url({ message: 'The webhook URL must not have a fragment.' });
  return url.toString();
}
