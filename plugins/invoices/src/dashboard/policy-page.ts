import { fromBaseUnits, html, toBaseUnits, type ChainId, type CoinId } from '@gw/kernel';
import { MATCHING_MODES, NO_TOLERANCE, POLICY_LIMITS, type MatchingMode, type PolicyPatch } from '../contract.js';
import { csrfField, dashboardErrors, type DashboardRequest, definePage, page, type PageServices, redirect, table } from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(POLICY_PAGE_DEPS, [...])`. */
export const POLICY_PAGE_DEPS = ['chains', 'invoicesPolicies'] as const;
type Services = PageServices<typeof POLICY_PAGE_DEPS>;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/policy`;
/** The value of a field that resets a setting to the deployment default. */
const DEFAULT = 'default';

/** A project's invoice policy: the effective values and overrides; setting them (blank fields stay as they are). */
export const policyPage = definePage<Services>({
  nav: { label: 'Invoice policy', scope: 'project', path: '/policy', order: 50 },
  cli: ['policy show'],
  summary: "The project's effective invoice policy and what it overrides; the form to set it.",
  render: async (req) => {
    const policy = await req.services.invoicesPolicies.get(req.project!.id);
    const chains = req.services.chains.chainIds();
    const o = policy.overrides;
    return page(
      `Invoice policy of ${req.project!.name}`,
      html`<h1>Invoice policy</h1>
<p class="note">Defaults for new invoices of this project; existing invoices keep what they were created with.</p>
${table(
  'Effective policy',
  ['Setting', 'Effective value', 'Set for this project'],
  [
    ['Matching mode', policy.default_matching_mode, o.default_matching_mode ?? 'deployment default'],
    ['Expiry', `${policy.expiry_seconds} s`, o.expiry_seconds === null ? 'deployment default' : `${o.expiry_seconds} s`],
    ['Enabled coins', policy.enabled_coins.join(', '), o.enabled_coins === null ? 'all of the enabled chains' : o.enabled_coins.join(', ')],
    [
      'Underpayment tolerance',
      toleranceText(policy.underpayment_tolerance),
      o.underpayment_tolerance === null ? 'none (default)' : toleranceText(o.underpayment_tolerance),
    ],
    ...chains.map((c) => [
      `Confirmations on ${c}`,
      String(policy.confirmations[c] ?? '—'),
      o.confirmations[c] === undefined ? 'deployment default' : String(o.confirmations[c]),
    ]),
  ],
)}
${
  req.user.role === 'admin'
    ? html`<h2>Change the policy</h2>
<p>Leave a field blank to keep it; write <code>default</code> to return to the deployment's default.</p>
<form method="post" action="${base(req)}">${csrfField(req)}
<label for="policy-mode">Matching mode</label>
<select id="policy-mode" name="matching_mode"><option value="">keep (${policy.default_matching_mode})</option>${[...MATCHING_MODES, DEFAULT].map((m) => html`<option value="${m}">${m}</option>`)}</select>
<label for="policy-expiry">Expiry in seconds (${POLICY_LIMITS.expirySeconds.min} to ${POLICY_LIMITS.expirySeconds.max})</label>
<input id="policy-expiry" name="expiry_seconds" type="text" inputmode="numeric" maxlength="8" placeholder="${String(policy.expiry_seconds)}">
<label for="policy-coins">Enabled coins (comma-separated, or "all")</label>
<input id="policy-coins" name="coins" type="text" maxlength="400" placeholder="${policy.enabled_coins.join(',')}">
<label for="policy-tolerance">Underpayment tolerance: the share of an invoice's amount a payment may fall short by and still be paid (0 to ${POLICY_LIMITS.underpaymentTolerance.max}, e.g. 0.005 for 0.5 %; "default": none)</label>
<input id="policy-tolerance" name="underpayment_tolerance" type="text" inputmode="decimal" maxlength="10" placeholder="${policy.underpayment_tolerance}">
<fieldset><legend>Confirmations per chain (${POLICY_LIMITS.confirmations.min} to ${POLICY_LIMITS.confirmations.max})</legend>
${chains.map((c) => html`<div class="field"><label for="${`conf-${c}`}">${c}</label><input id="${`conf-${c}`}" name="${`confirmations_${c}`}" type="text" inputmode="numeric" maxlength="7" placeholder="${String(policy.confirmations[c] ?? '')}"></div>`)}
</fieldset>
<button type="submit">Save the policy</button>
</form>`
    : html`<p class="note">You are a read-only member: changing the policy is for administrators.</p>`
}`,
    );
  },
  actions: {
    '': {
      cli: ['policy set'],
      summary: 'Set invoice defaults: matching mode, expiry, confirmations per chain, enabled coins, underpayment tolerance (blank fields unchanged).',
      handle: async (req) => {
        const patch: { -readonly [K in keyof PolicyPatch]: PolicyPatch[K] } = {};
        const mode = req.form.optional('matching_mode', 'Matching mode');
        if (mode !== undefined) {
          if (mode !== DEFAULT && !(MATCHING_MODES as readonly string[]).includes(mode))
            throw dashboardErrors.invalid_form({ message: `Matching mode must be one of ${MATCHING_MODES.join(', ')} or default.` });
          patch.defaultMatchingMode = mode === DEFAULT ? null : (mode as MatchingMode);
        }
        const expiry = req.form.optional('expiry_seconds', 'Expiry', { max: 8 });
        if (expiry !== undefined) patch.expirySeconds = expiry === DEFAULT ? null : wholeNumber(expiry, 'Expiry');
        const coins = req.form.optional('coins', 'Enabled coins', { max: 400 });
        // The coins are checked by the policy service (unknown: invalid_coin; none: validation_error), as for the CLI.
        if (coins !== undefined)
          patch.enabledCoins =
            coins === 'all'
              ? null
              : (coins
                  .split(',')
                  .map((c) => c.trim())
                  .filter(Boolean) as CoinId[]);
        // Checked by the policy service (400 validation_error naming underpayment_tolerance), as for the CLI.
        const tolerance = req.form.optional('underpayment_tolerance', 'Underpayment tolerance', { max: 10 });
        if (tolerance !== undefined) patch.underpaymentTolerance = tolerance === DEFAULT ? null : tolerance;
        const confirmations: Partial<Record<ChainId, number | null>> = {};
        for (const chain of req.services.chains.chainIds()) {
          const value = req.form.optional(`confirmations_${chain}`, `Confirmations on ${chain}`, { max: 7 });
          if (value !== undefined) confirmations[chain] = value === DEFAULT ? null : wholeNumber(value, `Confirmations on ${chain}`);
        }
        if (Object.keys(confirmations).length > 0) patch.confirmations = confirmations;
        if (Object.keys(patch).length === 0) throw dashboardErrors.invalid_form({ message: 'Nothing to set: every field was blank. Nothing was changed.' });
        await req.services.invoicesPolicies.set(req.project!.id, patch, req.actor);
        return redirect(base(req), 'The invoice policy is saved.');
      },
    },
  },
});

function wholeNumber(text: string, label: string): number {
  if (!/^\d{1,7}$/.test(text)) throw dashboardErrors.invalid_form({ message: `${label} must be a whole number or "default".` });
  return Number(text);
}

/** A tolerance share as the page shows it: the share and its percentage ("0.005 (0.5 %)"), or "none". */
function toleranceText(share: string): string {
  if (share === NO_TOLERANCE) return 'none';
  return `${share} (${fromBaseUnits(toBaseUnits(share, POLICY_LIMITS.underpaymentTolerance.decimals) * 100n, POLICY_LIMITS.underpaymentTolerance.decimals)} %)`;
}
