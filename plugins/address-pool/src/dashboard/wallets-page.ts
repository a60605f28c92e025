import { html, type ChainId, type NetworkKind, type SafeHtml } from '@gw/kernel';
import type { PoolStatus } from '../contract.js';
import { activationAdvice } from '../activation-summary.js';
import { previewWallet, type RegisterResult, type WalletView } from '@gw/plugin-wallets/contract';
import {
  actionButton,
  badge,
  csrfField,
  type DashboardActionRequest,
  dashboardErrors,
  type DashboardRequest,
  definePage,
  page,
  type PageServices,
  redirect,
  table,
  when,
} from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(WALLETS_PAGE_DEPS, [...])`. */
export const WALLETS_PAGE_DEPS = [
  'addressPoolConfig',
  'addressPoolReplenisher',
  'addressPoolService',
  'addressPoolStatus',
  'chains',
  'walletsWallets',
] as const;
type Services = PageServices<typeof WALLETS_PAGE_DEPS>;

/** How many receive addresses the operator compares with the wallet software before registering. */
export const PREVIEW_COUNT = 5;
/** Longest account key accepted by the form (a Cardano acct_xvk is the longest, ~120 characters). */
const KEY_MAX = 400;
/** Longest signature accepted (CIP-30 and TON Connect signatures are JSON). */
const SIGNATURE_MAX = 8192;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/wallets`;
const networkOf = (req: DashboardRequest<Services>): NetworkKind => (req.project!.kind === 'production' ? 'mainnet' : 'testnet');

/**
 * Wallets of a project per chain: register an account key (first the receive addresses with their
 * derivation paths to compare with the wallet software, then the binding), the ownership challenge
 * to sign (pasted, or signed with a browser wallet extension where one is present), and the address
 * pool of each verified wallet with gap-limit warnings.
 */
export const walletsPage = definePage<Services>({
  nav: { label: 'Wallets', scope: 'project', path: '/wallets', order: 30 },
  cli: ['wallet list', 'pool status'],
  summary: "The project's wallets per chain, pending challenges, the address pools with gap warnings, and the form to register a key.",
  render: async (req) => {
    const [wallets, pools] = await Promise.all([
      req.services.walletsWallets.list(req.project!.id),
      req.services.addressPoolStatus.status({ projectId: req.project!.id }),
    ]);
    const threshold = req.services.addressPoolConfig.gapWarningThreshold;
    return page(
      `Wallets of ${req.project!.name}`,
      html`<h1>Wallets</h1>
${table(
  'Wallet per chain',
  ['Chain', 'State', 'Network', 'Key fingerprint', 'Derivation', 'Registered', 'Verified'],
  wallets.map((w) => [
    w.chain,
    w.state === 'pending' ? html`${badge('pending')} <a href="${base(req)}/${w.chain}/verify">sign the challenge</a>` : badge(w.state),
    w.network,
    html`<code>${w.key_fingerprint}</code>`,
    html`<code>${w.derivation_path_prefix}</code> (${w.verification_standard})`,
    when(w.bound_at_iso),
    when(w.verified_at_iso),
  ]),
  'No wallet registered yet.',
)}
<h2>Address pools</h2>
${poolWarnings(pools, threshold)}
${table(
  'Address pool per verified wallet',
  ['Chain', 'Available', 'Allocated', 'Cooldown', 'Overlay', 'Activated', 'Total', 'Gap', 'Target free'],
  pools.map((p) => [
    p.chain,
    String(p.available),
    String(p.allocated),
    String(p.cooldown),
    String(p.overlay),
    p.activation_required ? `${p.activated} of ${p.total}` : 'not needed',
    String(p.total),
    p.gap_limit_applies ? `${p.gap}${p.gap > threshold ? ' (over the limit)' : ''}` : `${p.gap} (no gap limit)`,
    String(p.target_free),
  ]),
  'No pool yet: a pool is filled once a wallet is verified.',
)}
${req.user.role === 'admin' ? html`${actionButton(req, `${base(req)}/pool/replenish`, 'Replenish the pools now')}${activationForms(req, pools)}${registerForm(req)}` : html`<p class="note">You are a read-only member: registering wallets is for administrators.</p>`}`,
    );
  },
  views: {
    '/:chain/verify': {
      summary: "The pending wallet's ownership challenge and the form for its signature.",
      render: async (req) => {
        const chain = chainParam(req);
        const wallet = (await req.services.walletsWallets.list(req.project!.id)).find((w) => w.chain === chain);
        const challenge = await req.services.walletsWallets.pendingChallenge(req.project!.id, chain);
        if (!wallet || !challenge) return redirect(base(req), `The ${chain} wallet has no pending challenge.`);
        return page(`Verify the ${chain} wallet`, challengePage(req, wallet, challenge));
      },
    },
  },
  actions: {
    '/preview': {
      cli: ['wallet preview'],
      summary: 'Derive the first receive addresses of a key with their paths, to compare with the wallet software before registering (nothing stored).',
      handle: async (req) => {
        const { chain, xpub } = keyFields(req);
        const preview = previewWallet(req.services.chains, { chain, xpub, network: networkOf(req), count: PREVIEW_COUNT });
        const current = (await req.services.walletsWallets.list(req.project!.id)).find((w) => w.chain === preview.chain);
        return page(
          `Check the ${chain} addresses`,
          html`<h1>Check the addresses before going on</h1>
<p>Open your wallet software and compare its first receive addresses of this account with the ones below. <strong>Register the key only if they are identical</strong>: payments go to these addresses.</p>
${table(
  `First ${PREVIEW_COUNT} receive addresses of the ${chain} key`,
  ['Index', 'Derivation path', 'Address'],
  preview.addresses.map((a) => [String(a.index), html`<code>${a.path}</code>`, html`<code class="wrap">${a.address}</code>`]),
)}
<dl class="facts"><dt>Chain</dt><dd>${preview.chain} (${preview.network})</dd><dt>Account path</dt><dd><code>${preview.derivation_path_prefix}</code></dd><dt>Canonical key</dt><dd><code class="wrap">${preview.canonical_key}</code></dd></dl>
<form method="post" action="${base(req)}/register">${csrfField(req)}
<input type="hidden" name="chain" value="${preview.chain}"><input type="hidden" name="xpub" value="${xpub}">
${current?.state === 'verified' ? html`<p class="warning">The project already has a verified ${chain} wallet (<code>${current.key_fingerprint}</code>). Registering replaces it; the new key must be verified before invoices can use it.</p><input type="hidden" name="replace" value="true">` : null}
<button type="submit">The addresses match: register this key</button> <a href="${base(req)}">They do not match: go back</a>
</form>`,
        );
      },
    },
    '/register': {
      cli: ['wallet register'],
      summary: 'Bind the account key as pending and show the ownership challenge to sign with receive index 0.',
      handle: async (req) => {
        const { chain, xpub } = keyFields(req);
        const result = await req.services.walletsWallets.register({ projectId: req.project!.id, chain, xpub, replace: req.form.checked('replace') }, req.actor);
        return page(`Verify the ${chain} wallet`, challengePage(req, result.wallet, result.challenge), 201);
      },
    },
    '/:chain/verify': {
      cli: ['wallet verify'],
      summary: 'Complete the ownership challenge with the signature made by receive index 0.',
      handle: async (req) => {
        const chain = chainParam(req);
        const signature = req.form.text('signature', 'Signature', { max: SIGNATURE_MAX });
        const wallet = await req.services.walletsWallets.verify({ projectId: req.project!.id, chain, signature }, req.actor);
        return redirect(base(req), `The ${wallet.chain} wallet ${wallet.key_fingerprint} is verified; its address pool fills now.`);
      },
    },
    '/pool/replenish': {
      cli: ['pool replenish'],
      summary: 'Derive addresses up to the free target now (the worker does this every minute).',
      handle: async (req) => {
        await req.services.addressPoolReplenisher.replenish({ projectId: req.project!.id });
        return redirect(base(req), 'The address pools are replenished.');
      },
    },
    '/pool/activate': {
      cli: ['pool activate'],
      summary: 'Mark a TRON pool address as activated by hand after sending it TRX (the watchers do it themselves where they follow the network).',
      handle: async (req) => {
        const address = req.form.text('address', 'Address', { max: 100 });
        await req.services.addressPoolService.activate({ projectId: req.project!.id, chain: 'tron', address }, req.actor);
        return redirect(base(req), `${address} is activated.`);
      },
    },
  },
});

function chainParam(req: DashboardRequest<Services>): ChainId {
  const chain = req.params['chain'];
  const known = req.services.chains.chainIds();
  if (!known.includes(chain as ChainId)) throw dashboardErrors.invalid_form({ message: `Chain must be one of ${known.join(', ')}.` });
  return chain as ChainId;
}

function keyFields(req: DashboardActionRequest<Services>): { chain: ChainId; xpub: string } {
  const chain = req.form.choice<ChainId>('chain', 'Chain', req.services.chains.chainIds());
  const xpub = req.form.text('xpub', 'Account key', { max: KEY_MAX });
  return { chain, xpub };
}

function registerForm(req: DashboardRequest<Services>): SafeHtml {
  return html`<h2 id="register">Register an account key</h2>
<p>Paste the account-level public key of your wallet (never a private key or seed): BTC xpub/zpub (tpub/vpub on testnets), EVM and TRON account xpub, Cardano <code>acct_xvk</code>, TON public key. The next step shows its first receive addresses to compare with your wallet.</p>
<form method="post" action="${base(req)}/preview">${csrfField(req)}
<label for="wallet-chain">Chain</label>
<select id="wallet-chain" name="chain" required>${req.services.chains.list().map((a) => html`<option value="${a.definition.id}">${a.definition.id}</option>`)}</select>
<label for="wallet-key">Account key</label>
<textarea id="wallet-key" name="xpub" rows="3" required maxlength="${KEY_MAX}" spellcheck="false" autocomplete="off"></textarea>
<button type="submit">Show the first addresses</button>
</form>`;
}

function activationForms(req: DashboardRequest<Services>, pools: readonly PoolStatus[]): SafeHtml | null {
  const waiting = pools.flatMap((p) => p.awaiting_activation);
  if (waiting.length === 0) return null;
  return html`<h2>TRON addresses awaiting activation</h2>
<p>The watchers mark an address activated once it exists on chain (an activation plan, or at least 1 TRX sent to it from any wallet). Where no watcher follows the network, mark it here after its TRX is confirmed.</p>
<form method="post" action="${base(req)}/pool/activate">${csrfField(req)}
<label for="activate-address">Address</label>
<select id="activate-address" name="address">${waiting.map((a) => html`<option value="${a}">${a}</option>`)}</select>
<button type="submit">Mark activated</button>
</form>`;
}

function poolWarnings(pools: readonly PoolStatus[], threshold: number): SafeHtml | null {
  const warnings = [
    ...pools
      .filter((p) => p.gap_limit_applies && p.gap > threshold)
      .map(
        (p) =>
          `${p.chain}: the gap is ${p.gap}, above the wallet software's usual gap limit of ${threshold}. Raise the gap limit in your wallet software, or it may not show payments to the later addresses.`,
      ),
    ...pools.flatMap((p) => {
      const advice = activationAdvice(p);
      return advice ? [`${p.chain}: ${advice}`] : [];
    }),
    ...pools
      .filter((p) => p.available === 0 && !activationAdvice(p))
      .map((p) =>
        p.activation_required
          ? `${p.chain}: no activated address is free (${p.unactivated} wait for activation); new invoices share addresses or wait. Activate more: an activation plan, or TRX sent to them.`
          : `${p.chain}: no free address is left; new invoices wait for the pool to be replenished.`,
      ),
  ];
  if (warnings.length === 0) return null;
  return html`<div class="warning" role="alert"><ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></div>`;
}

/** The challenge, how to sign it, the wallet-extension button (progressive) and the signature form. */
function challengePage(req: DashboardRequest<Services>, wallet: WalletView, challenge: RegisterResult['challenge']): SafeHtml {
  return html`<h1>Prove you own the ${wallet.chain} wallet</h1>
<p>The key <code>${wallet.key_fingerprint}</code> is registered as <strong>pending</strong>. Sign the message below with the key of receive index 0 (<code>${challenge.sign_with_address}</code>, path <code>${challenge.sign_with_path}</code>) and paste the signature. Invoices use the wallet once it is verified.</p>
<label for="challenge-message">Message to sign</label>
<div class="copyable"><textarea id="challenge-message" class="mono" rows="3" readonly>${challenge.message}</textarea><button type="button" class="copy" data-copy="challenge-message">Copy</button></div>
<p class="note">Expires ${when(challenge.expires_at_iso)}. ${signingHint(wallet.chain)}</p>
<div class="wallet-sign" data-chain="${wallet.chain}" data-message-field="challenge-message" data-address="${challenge.sign_with_address}" data-signature-field="wallet-signature" hidden>
<button type="button" class="wallet-sign-button">Sign with the browser wallet</button> <span class="wallet-sign-status" role="status"></span>
</div>
<form method="post" action="${base(req)}/${wallet.chain}/verify">${csrfField(req)}
<label for="wallet-signature">Signature</label>
<textarea id="wallet-signature" name="signature" rows="4" required maxlength="${SIGNATURE_MAX}" spellcheck="false" autocomplete="off"></textarea>
<button type="submit">Verify the signature</button>
</form>
<p><a href="${base(req)}">Back to the wallets</a></p>`;
}

function signingHint(chain: string): string {
  switch (chain) {
    case 'btc':
      return 'Bitcoin: a BIP-322 or BIP-137 message signature ("Sign message" in the wallet).';
    case 'eth':
    case 'polygon':
    case 'bsc':
      return 'EVM: a personal_sign signature (0x…).';
    case 'tron':
      return 'TRON: a signMessageV2 signature (TronLink).';
    case 'ada':
      return 'Cardano: the CIP-30 signData result as JSON {"signature": …, "key": …}.';
    case 'ton':
      return 'TON: the TON Connect signData result as JSON.';
    default:
      return '';
  }
}
