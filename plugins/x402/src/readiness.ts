import { withDeps, type ReadinessCheck, type ReadinessResult } from '@gw/kernel';
import { nativeText } from './operator/native-amount.js';
import { facilitatorStatus, gasWalletStatus, X402_STATUS_DEPS, type X402StatusDeps } from './operator/x402-status.js';

/**
 * How long a check's outside reads (gas wallet balances over the chain's providers, the external
 * facilitator's `/supported`) are reused in this process: readiness is polled often (`/readyz`
 * details, the dashboard's doctor page) and a check must not turn every poll into provider calls.
 * What is reused is an observation for the operator, not state anything acts on.
 */
const OUTSIDE_READ_MS = 60_000;

/**
 * x402 (issue 41):
 * - `x402.gas-wallets` (settlement `gas_wallet`): every gas wallet's key file is readable, and each
 *   wallet's balance pays for at least one settlement at its per-settlement cap (a warning
 *   otherwise: settlements there are refused with `unexpected_settle_error` until it is topped up).
 *   No gas wallet at all is a warning: nothing is payable with x402.
 * - `x402.facilitator` (settlement `facilitator`): the external facilitator's `GET /supported`
 *   answers (an error otherwise: every settlement fails) and lists every payable network (a warning
 *   names those it does not).
 * Both pass with a note in the other modes.
 */
export const x402Readiness = withDeps(X402_STATUS_DEPS, (deps): ReadinessCheck[] => {
  const gasWallets = reusedFor(OUTSIDE_READ_MS, () => gasWalletsResult(deps));
  const facilitator = reusedFor(OUTSIDE_READ_MS, () => facilitatorResult(deps));
  return [
    {
      name: 'x402.gas-wallets',
      summary: 'In gas_wallet mode, every x402 gas wallet’s key is readable and its balance pays for a settlement at its cap.',
      run: gasWallets,
    },
    {
      name: 'x402.facilitator',
      summary: 'In facilitator mode, the external x402 facilitator answers /supported and lists every payable network.',
      run: facilitator,
    },
  ];
});

async function gasWalletsResult(deps: X402StatusDeps): Promise<ReadinessResult> {
  const { settlement, gasWallets } = deps.x402Config;
  const configured = Object.entries(gasWallets).flatMap(([chain, byNetwork]) => Object.keys(byNetwork).map((network) => `${chain}.${network}`));
  if (settlement !== 'gas_wallet')
    return {
      ok: true,
      detail: `plugins.x402.settlement is ${settlement}: no gas wallet is used${configured.length > 0 ? ` (${configured.join(', ')} configured)` : ''}.`,
    };
  if (configured.length === 0)
    return {
      ok: false,
      severity: 'warning',
      detail: 'plugins.x402.settlement is gas_wallet but plugins.x402.gasWallets is empty: no coin is payable with x402.',
      fix: 'Add a gas wallet per network under plugins.x402.gasWallets.<chain>.<network> (privateKeyFile, maxPerSettlementUnits, maxPerDayUnits; docs/x402.md), or set plugins.x402.settlement to facilitator or off.',
    };
  const warnings: string[] = [];
  try {
    deps.x402GasWallets.inspectKeys((message) => warnings.push(message));
  } catch (error) {
    return {
      ok: false,
      severity: 'error',
      detail: `a gas wallet's key cannot be used: ${messageOf(error)}`,
      fix: 'Each plugins.x402.gasWallets.<chain>.<network>.privateKeyFile must hold 0x and 64 hex digits, readable by the gateway (mode 600); docs/x402.md.',
    };
  }
  const wallets = (await deps.x402GasWallets.views()).map((w) => gasWalletStatus(deps.chains, w));
  const unread = wallets.filter((w) => w.balance === null);
  const short = wallets.flatMap((w) => (w.balance !== null && w.settlements_covered === '0' ? [{ ...w, balance: w.balance }] : []));
  const listed = wallets.map(
    (w) =>
      `${w.chain}.${w.network} ${w.address} (${w.balance ? nativeText(w.balance) : 'balance unknown'}, ${w.settlements_covered ?? '?'} settlement(s) at the cap)`,
  );
  if (short.length > 0)
    return {
      ok: false,
      severity: 'warning',
      detail: `${short
        .map(
          (w) =>
            `${w.chain}.${w.network}'s gas wallet ${w.address} holds ${nativeText(w.balance)}, less than one settlement at its cap (${nativeText(w.max_per_settlement)})`,
        )
        .join('; ')}: x402 settlements there are refused (unexpected_settle_error).${warnings.length > 0 ? ` ${warnings.join(' ')}` : ''}`,
      fix: `Send gas money (only what settlements need: the address holds no payment) to ${short.map((w) => `${w.address} on ${w.chain}.${w.network}`).join(', ')}; \`gateway x402 status\` shows balances and caps.`,
    };
  if (unread.length > 0)
    return {
      ok: false,
      severity: 'warning',
      detail: `the balance of ${unread.map((w) => `${w.chain}.${w.network}'s gas wallet ${w.address}`).join(', ')} could not be read: the network is not watched here, or its node did not answer.`,
      fix: 'Watch the network (plugins.watchers.chains, docs/watchers.md) or check its provider; `gateway x402 status` reads the balances again.',
    };
  if (warnings.length > 0) return { ok: false, severity: 'warning', detail: warnings.join(' '), fix: 'See docs/x402.md, "Gas wallet".' };
  return { ok: true, detail: `gas wallets: ${listed.join('; ')}.` };
}

async function facilitatorResult(deps: X402StatusDeps): Promise<ReadinessResult> {
  const { settlement } = deps.x402Config;
  if (settlement !== 'facilitator') {
    const configured = deps.x402Config.facilitator ? ` (${deps.x402Config.facilitator.url} is configured, not used)` : '';
    return { ok: true, detail: `plugins.x402.settlement is ${settlement}: no external facilitator is asked${configured}.` };
  }
  const status = await facilitatorStatus(deps);
  if (status === null)
    return {
      ok: false,
      severity: 'error',
      detail: 'plugins.x402.settlement is facilitator but plugins.x402.facilitator is not set: every x402 settlement fails.',
      fix: 'Set plugins.x402.facilitator.url (and authorizationFile if it needs a credential); docs/x402.md.',
    };
  if (!status.answers)
    return {
      ok: false,
      severity: 'error',
      detail: `the external facilitator ${status.url} does not answer GET /supported (${status.error ?? 'no answer'}): x402 settlements fail while it does not.`,
      fix: 'Check plugins.x402.facilitator (url, authorizationFile, timeoutSeconds) and that the facilitator is reachable from the gateway; `gateway x402 status` asks it again.',
    };
  if (status.missing_networks.length > 0)
    return {
      ok: false,
      severity: 'warning',
      detail: `the external facilitator ${status.url} does not list ${status.missing_networks.join(', ')} (it settles ${status.networks.join(', ') || 'nothing'} with x402 v2 exact): payments on ${status.missing_networks.length === 1 ? 'that network' : 'those networks'} would be refused by it.`,
      fix: 'Use a facilitator that settles those networks, or stop watching them for x402 coins; `gateway x402 status` lists payable assets.',
    };
  return { ok: true, detail: `the external facilitator ${status.url} answers and settles ${status.networks.join(', ') || 'no network'} (x402 v2 exact).` };
}

/** `load`'s result, loaded again once it is `ms` old; a load in flight is shared; a failed one is not kept. */
function reusedFor<T>(ms: number, load: () => Promise<T>): () => Promise<T> {
  let last: { readonly at: number; readonly value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (last && now - last.at < ms) return last.value;
    const value = load();
    const entry = { at: now, value };
    last = entry;
    value.catch(() => {
      if (last === entry) last = undefined;
    });
    return value;
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
