import { coin, PRICE_ASSETS, type ChainDefinition } from '@gw/chain-api';
import { evmChainDefinition, llamarpcRpc, MULTICALL3_ADDRESS, publicnodeRpc, tenderlyRpc } from '@gw/chain-evm';

/** Ethereum: plain data, served by the shared EVM adapter. Sources: docs/chains-sources.md. */
export const ethDefinition: ChainDefinition = evmChainDefinition({
  id: 'eth',
  name: 'Ethereum',
  networks: {
    mainnet: {
      id: 'ethereum',
      name: 'Ethereum mainnet',
      kind: 'mainnet',
      evmChainId: 1,
      eip7702: true,
      multicall3: MULTICALL3_ADDRESS,
      // Keyless public JSON-RPC (issue 40; limits and sources in @gw/chain-evm's public-rpc.ts).
      publicProviders: [
        publicnodeRpc('https://ethereum-rpc.publicnode.com'),
        tenderlyRpc('https://mainnet.gateway.tenderly.co'),
        llamarpcRpc('https://eth.llamarpc.com'),
      ],
    },
    testnets: [
      {
        id: 'sepolia',
        name: 'Ethereum Sepolia',
        kind: 'testnet',
        evmChainId: 11155111,
        eip7702: true,
        multicall3: MULTICALL3_ADDRESS,
        publicProviders: [publicnodeRpc('https://ethereum-sepolia-rpc.publicnode.com'), tenderlyRpc('https://sepolia.gateway.tenderly.co')],
      },
    ],
  },
  coins: [
    coin({ id: 'eth', price: PRICE_ASSETS.ETH, decimals: 18, source: 'Ethereum yellow paper: 1 ether = 10^18 wei' }),
    coin({
      id: 'usdt_erc20',
      price: PRICE_ASSETS.USDT,
      decimals: 6,
      // Tether publishes no Sepolia deployment; USDT is therefore unavailable on testnet projects.
      // Synthetic, sandbox only: see CoinDefinition.sandboxContract.
      sandboxContract: '0x30758F7B3C7CA12f5224d41579A93e48Cf0f88eC',
      contracts: { ethereum: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
      source: 'https://tether.to/en/supported-protocols/ ; https://etherscan.io/token/0xdac17f958d2ee523a2206206994597c13d831ec7 (decimals() = 6)',
    }),
    coin({
      id: 'usdc_erc20',
      price: PRICE_ASSETS.USDC,
      decimals: 6,
      contracts: { ethereum: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', sepolia: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' },
      source: 'https://developers.circle.com/stablecoins/usdc-contract-addresses (mainnet and testnet tables; decimals 6)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    eth: 1_000_000_000_000n, // 0.000001 ETH
    usdt_erc20: 10_000n, // 0.01 USDT
    usdc_erc20: 10_000n, // 0.01 USDC
  },
  // The watcher's default poll interval follows it (capped at 30 s): one slot every 12 s since the Merge.
  blockTimeSeconds: 12,
  // 12 blocks (~2.4 min): the long-standing exchange figure. Economic finality after the merge is
  // two epochs (~64 blocks, ~13 min); operators wanting finality set 64 per project.
  defaultConfirmations: 12,
});
