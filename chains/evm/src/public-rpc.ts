import { publicProviderAt } from '@gw/chain-api';

/**
 * Keyless public JSON-RPC operators that serve several EVM chains (issue 40): who runs each, the
 * limit it documents (or the figure chosen where it documents none) and where that is said. Each
 * chain's definition lists its networks' endpoints through these, so one operator's facts are
 * written once; docs/chains-sources.md repeats them.
 *
 * Each operator serves every chain from a host of one domain (`ethereum-rpc.publicnode.com`,
 * `bsc-rpc.publicnode.com`, ...) and publishes no per-chain limit: its figure is taken as one
 * limit for the gateway across all of them (`limitScope`, the domain), as keyless services
 * commonly count a client's address across their networks (dRPC's free tier: "per IP",
 * drpc.org/docs/howitworks/ratelimiting). Every network of one operator then shares one budget.
 *
 * Left out on purpose: dRPC's free tier caps a JSON-RPC batch at 3 calls
 * (https://drpc.org/docs/howitworks/ratelimiting), and the EVM watcher batches a scan's blocks and
 * logs in one request (up to 22 calls); Ankr's public endpoints need a key since 2025
 * (ankr.com/docs/whats-new/#free-apis-via-sign-in); BNB Chain's own
 * mainnet endpoints disable `eth_getLogs` (https://docs.bnbchain.org/bnb-smart-chain/developers/json_rpc/json-rpc-endpoint),
 * which token transfers need.
 */
/** PublicNode, run by Allnodes: keyless endpoints `<chain>-rpc.publicnode.com` on every EVM chain here. */
export const publicnodeRpc = publicProviderAt({
  name: 'publicnode',
  operator: 'allnodes',
  limit: { requestsPerSecond: 5 },
  // One budget for every chain PublicNode serves, EVM or not (TRON's tron-rpc.publicnode.com names it too).
  limitScope: 'publicnode.com',
  source:
    'https://www.publicnode.com (Allnodes; free, no key): no published request limit found; 5 requests/s chosen as a conservative figure (ethereum.org lists PublicNode among keyless endpoints for scripts and fallbacks)',
});

/** Tenderly's public gateways `<network>.gateway.tenderly.co` (no access key in the path). */
export const tenderlyRpc = publicProviderAt({
  name: 'tenderly',
  operator: 'tenderly',
  limit: { requestsPerSecond: 2 },
  limitScope: 'gateway.tenderly.co',
  source: 'https://docs.tenderly.co/supported-networks ("Public RPC are rate limited"; no figure published): 2 requests/s chosen as a conservative figure',
});

/** LlamaNodes' keyless `*.llamarpc.com` (mainnets only). */
export const llamarpcRpc = publicProviderAt({
  name: 'llamarpc',
  operator: 'llamanodes',
  limit: { requestsPerSecond: 2 },
  limitScope: 'llamarpc.com',
  source: 'https://llamarpc.com (LlamaNodes; free, no key): no published request limit found; 2 requests/s chosen as a conservative figure',
});
