import { coreErrors, html, type SafeHtml } from '@gw/kernel';
import { csrfField, type DashboardActionRequest, type DashboardRequest } from '@gw/plugin-dashboard/contract';
import type { TreasuryScope } from '../services/treasury-scope.js';

type Form = DashboardActionRequest<unknown>['form'];

/** The reach of the treasury pages: every project of the signed-in user's operator. */
export const operatorScope = (req: Pick<DashboardRequest<unknown>, 'user'>): TreasuryScope => ({ operatorId: req.user.operatorId });

/** The chain network a treasury form names. */
export function networkFields(form: Form): { chain: string; network: string } {
  return { chain: form.text('chain', 'Chain', { max: 40 }), network: form.text('network', 'Network', { max: 40 }) };
}

function wholeNumber(form: Form, name: string, label: string, digits: number, message: string): bigint | undefined {
  const value = form.optional(name, label, { max: digits });
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw coreErrors.validation_error({ message, details: { field: name } });
  return BigInt(value);
}

/** The optional `min_units` of a sweep form: only outputs or addresses worth at least this many base units. */
export const minUnitsField = (form: Form): bigint | undefined =>
  wholeNumber(form, 'min_units', 'Minimum', 78, 'The minimum must be a whole number of base units.');

/** The optional `fee_rate` of a plan form (base units per size unit). */
export const feeRateField = (form: Form): bigint | undefined => wholeNumber(form, 'fee_rate', 'Fee rate', 30, 'The fee rate must be a whole number.');

/** The upload form of a plan's signed file, posted to `<at>/signed`. */
export function signedFileForm(req: DashboardRequest<unknown>, at: string, heading: string, label: string): SafeHtml {
  return html`<h2>${heading}</h2><form method="post" action="${at}/signed">${csrfField(req)}<label for="signed">${label}</label><textarea id="signed" name="signed" required rows="6"></textarea><button type="submit">Verify and store</button></form>`;
}
