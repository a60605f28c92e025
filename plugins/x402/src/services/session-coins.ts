import { networkFor, type ChainRegistry, type CoinId, type ProjectKind } from '@gw/kernel';
import type { SessionView } from '@gw/plugin-sessions/contract';
import type { X402Asset, X402Networks } from './x402-networks.js';

/** What a session's coin choice reads. */
export interface SessionCoinDeps {
  readonly chains: ChainRegistry;
  readonly x402Networks: X402Networks;
}

/**
 * Which invoice of a checkout session x402 answers for (docs/decisions.md, "x402: one requirement
 * per 402, a session offers the coin it picks"); the same rule on the payer URL and in MCP's
 * `get_x402_requirements`. A request never switches a session's coin: the current invoice is
 * answered when x402 can pay its coin; only a session without an invoice gets a pick (`asked`
 * when it names an allowed payable coin, else the first allowed payable coin).
 */
export type SessionCoinChoice =
  /** The current invoice, of a coin x402 can pay. */
  | { readonly kind: 'current'; readonly coin: CoinId; readonly invoiceId: string }
  /** No invoice yet: pick this coin (allowed, payable). */
  | { readonly kind: 'pick'; readonly coin: CoinId }
  /** The current invoice is of a coin x402 cannot pay (the payer picked it on the page). */
  | { readonly kind: 'current_unpayable'; readonly coin: CoinId }
  /** No invoice yet, and `asked` is not an allowed coin x402 can pay. */
  | { readonly kind: 'asked_unpayable'; readonly coin: string }
  /** No invoice yet, and nothing to pick: the session is not open, or no allowed coin is payable. */
  | { readonly kind: 'none' };

export async function sessionCoinChoice(deps: SessionCoinDeps, session: SessionView, asked: string | undefined): Promise<SessionCoinChoice> {
  if (session.invoice_id !== null && session.coin !== null) {
    return (await x402PayableCoin(deps, session.coin, session.mode))
      ? { kind: 'current', coin: session.coin, invoiceId: session.invoice_id }
      : { kind: 'current_unpayable', coin: session.coin };
  }
  if (session.status !== 'open') return { kind: 'none' };
  if (asked !== undefined) {
    const allowed = session.allowed_coins.find((coin) => coin === asked);
    return allowed !== undefined && (await x402PayableCoin(deps, allowed, session.mode))
      ? { kind: 'pick', coin: allowed }
      : { kind: 'asked_unpayable', coin: asked };
  }
  for (const coin of session.allowed_coins) if (await x402PayableCoin(deps, coin, session.mode)) return { kind: 'pick', coin };
  return { kind: 'none' };
}

/** The session's allowed coins x402 can pay, in display order, with their assets (none for a sandbox session). */
export async function sessionPayableAssets(deps: SessionCoinDeps, session: SessionView): Promise<X402Asset[]> {
  const assets: X402Asset[] = [];
  for (const coin of session.allowed_coins) {
    const asset = await x402AssetOf(deps, coin, session.mode);
    if (asset) assets.push(asset);
  }
  return assets;
}

/** Whether x402 can pay `coin` for a project of `kind`: never in a sandbox (its payments are simulated). */
export async function x402PayableCoin(deps: SessionCoinDeps, coin: string, kind: ProjectKind): Promise<boolean> {
  return (await x402AssetOf(deps, coin, kind)) !== undefined;
}

async function x402AssetOf(deps: SessionCoinDeps, coin: string, kind: ProjectKind): Promise<X402Asset | undefined> {
  if (kind === 'sandbox' || !(deps.chains.coinIds() as readonly string[]).includes(coin)) return undefined;
  return deps.x402Networks.asset(coin, networkFor(deps.chains.coin(coin as CoinId).adapter.definition, kind).id);
}
