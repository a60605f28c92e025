import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

const Provider = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Label in logs and metrics.' }),
    url: Type.String({ pattern: '^https?://', description: 'Base URL of the provider (JSON-RPC node, Esplora, TRON full node, Blockfrost, toncenter v3).' }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Extra headers, e.g. API keys (`project_id`, `TRON-PRO-API-KEY`, `X-API-Key`).' }),
    ),
    kind: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'API the provider speaks where a chain reads several: btc takes `esplora` (default) or `bitcoin-core` (JSON-RPC of Bitcoin Core or bcoin).',
      }),
    ),
    username: Type.Optional(Type.String({ description: 'HTTP Basic auth user (Bitcoin Core `rpcuser`).' })),
    password: Type.Optional(Type.String({ description: 'HTTP Basic auth password (Bitcoin Core `rpcpassword`, bcoin `api-key`).' })),
    cookieFile: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Bitcoin Core's `.cookie` file, read at each request (the node writes a new one at each start); instead of username/password.",
      }),
    ),
    wsUrl: Type.Optional(
      Type.String({
        pattern: '^wss?://',
        description:
          'WebSocket URL of the same node, for push (EVM: `eth_subscribe("newHeads")`): a new block starts a scan pass at once instead of at the next poll. Polling goes on beside it and takes over while the socket is down.',
      }),
    ),
    zmqUrl: Type.Optional(
      Type.String({
        pattern: '^tcp://',
        description:
          'ZeroMQ endpoint of the same Bitcoin Core node (kind `bitcoin-core`), publishing both `zmqpubhashblock` and `zmqpubrawtx` on it, e.g. `tcp://127.0.0.1:28332`: a new block, or a transaction to a watched address entering the mempool, starts a scan pass at once. Polling goes on beside it and takes over while the connection is down.',
      }),
    ),
    operator: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Who runs the provider. Providers of different operators are independent sources for the quorum; configured providers without one are all your own, one source together.',
      }),
    ),
    limit: Type.Optional(
      Type.Object(
        {
          requestsPerSecond: Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Sustained requests per second the provider allows.' }),
          requestsPerDay: Type.Optional(Type.Integer({ minimum: 1, description: 'Requests per UTC day, where the provider caps the day.' })),
        },
        {
          additionalProperties: false,
          description: "The provider's request limits: requests are paced under them across instances, and a 429 rests it. Absent: unlimited (your own node).",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Network = Type.Object(
  {
    providers: Type.Optional(
      Type.Array(Provider, {
        minItems: 1,
        description: "Tried in order; the next one takes over when one fails. Absent: the chain's public providers for this network.",
      }),
    ),
    publicProviders: Type.Optional(
      Type.Union([Type.Literal('replace'), Type.Literal('join')], {
        description:
          "With `providers`: `replace` (the default) watches through them alone; `join` adds the chain's public providers after them (more sources for the quorum).",
      }),
    ),
    quorum: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 5,
        description:
          'Independent providers (different operators) that must report a transfer in the same block at the confirmation threshold before it counts toward paid. Default: 2 where the providers have two or more operators, else 1.',
      }),
    ),
    startHeight: Type.Optional(Type.Integer({ minimum: 0, description: 'First block to scan when no cursor exists yet. Default: the tip at the first scan.' })),
    scanIntervalSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        description:
          'Pause between two scans of this network once it has caught up with the tip. Default: the global `scanIntervalSeconds`, else the chain`s block time (1 to 30 s).',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * Config slice `plugins.watchers`: which chain networks are watched and through which providers.
 * A network the config does not name is watched through its chain's public providers (unless
 * `publicProviders` is false). Example (gateway.config.json):
 *
 *     { "plugins": { "watchers": { "chains": { "eth": { "sepolia": { "providers": [{ "name": "node-a", "url": "http://127.0.0.1:8545" }] } } } } } }
 */
export const WatchersConfigSchema = configSlice({
  chains: Type.Record(Type.String(), Type.Record(Type.String(), Network), {
    default: {},
    description: 'chain id → network id → providers, quorum and start height.',
  }),
  scanIntervalSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3600,
      description:
        'Pause between two scans of a network once it has caught up with the tip, for every network without its own. Default: each chain`s block time, at least 1 s and at most 30 s (eth 12, polygon 2, bsc 1, tron 3, ada 20, ton 5, btc 30, ltc 30, base 2).',
    }),
  ),
  publicProviders: Type.Boolean({
    default: true,
    description:
      "Watch the mainnet and the test network in use of every enabled chain through the chain's public providers when `chains` says nothing of it. false: only the networks under `chains` are watched.",
  }),
  publicLimitShare: Type.Number({
    minimum: 0.05,
    maximum: 1,
    default: 0.5,
    description: "Share of a provider's documented limit the gateway uses at most (the rest is left to others behind the same address).",
  }),
  disagreementDecisionSeconds: Type.Integer({
    minimum: 60,
    maximum: 2_592_000,
    default: 1800,
    description:
      'How long a disagreement between providers waits for them to agree (a lagging provider catching up) before it is the operator`s to decide, counted from their first answer at the transfer`s threshold; a transfer that waits that long without the quorum and without a contradiction is put to the operator too (an unattested disagreement). The invoice waits meanwhile, it is never credited on one provider`s word.',
  }),
  pacedPassSeconds: Type.Integer({
    minimum: 1,
    maximum: 600,
    default: 60,
    description:
      'Where a network`s providers are paced (a `limit`, as every public provider has), a scan pass stops reading further blocks once it has run this long: it commits the blocks it read, and the next pass goes on from there at once. Keeps the pass`s transaction and its hold on the network short (an operator`s decision waits for it). A pass reads at least one scan`s blocks.',
  }),
  providerTimeoutMs: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 10_000,
    description: 'Per provider request; longer is a failed request and the next provider is tried.',
  }),
  maxBackoffSeconds: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 300,
    description: 'Longest pause after repeated provider failures (doubling from the network`s scan interval).',
  }),
  mempoolTimeoutSeconds: Type.Integer({
    minimum: 60,
    maximum: 2_592_000,
    default: 86_400,
    description:
      'A transfer seen only in the mempool that is not in a block after this long is dropped: its invoice goes back to pending and expires as usual.',
  }),
  mempoolAddressesPerPass: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 100,
    description:
      'Most watched addresses a pass asks a per-address provider about their mempool (Esplora); the window rotates over all of them from pass to pass.',
  }),
  activationIntervalMinutes: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 2,
    description:
      'On chains whose addresses need activation (TRON): minutes between two checks of which unactivated pool addresses exist on chain by now (the `watchers.activation` job). TRX seen arriving at a pool address marks it at once, between checks.',
  }),
  activationAddressesPerPass: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 50,
    description:
      'Most unactivated pool addresses one activation check asks the provider about (one `getaccount` each on TRON); the window rotates over all of them from check to check.',
  }),
  reorgDepth: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 128,
    description: 'Block hashes kept per network; deepest reorg that is followed (blocks below the provider`s finalized height are never rewound).',
  }),
});

export type WatchersConfig = Static<typeof WatchersConfigSchema>;
