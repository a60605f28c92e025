import { html, type SafeHtml } from '@gw/kernel';
import { table } from '@gw/plugin-dashboard/contract';
import type { StoredRecipient } from '../models/plan.js';

/** A payout plan's recipients (issue 37), in the order it pays them; nothing for other plans. */
export function recipientsTable(recipients: readonly StoredRecipient[]): SafeHtml | null {
  if (recipients.length === 0) return null;
  return table(
    'Recipients',
    ['Reference', 'Address', 'Amount (base units)'],
    recipients.map((r) => [html`<code>${r.reference}</code>`, html`<code class="wrap">${r.address}</code>`, r.units]),
  );
}
