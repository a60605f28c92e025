import { randomBytes } from 'node:crypto';
import { defineChain, type ChainAdapter, type ChainModule } from '@gw/kernel';
import { tonChain } from '@gw/chain-ton';

/**
 * A chain with payment references (issue 43) built from an existing family, for the tests of the
 * generic machinery (address pool, matching, watched references, sandbox) that need no Solana:
 * TON's adapter and keys as they are, declared as one recipient per wallet (`maxAddressIndex` 0:
 * the operator's W5 wallet, subwallet 0, which the ownership proof already names) with a fresh
 * reference per invoice. A reference is the raw address (`0:<64 hex>`, valid on both network kinds)
 * of 32 random bytes: an account nobody holds a key for, as a Solana Pay reference is. Its id and
 * coin ids (`tonref`, `usdt_tonref`) differ from TON's, so both can be enabled together. TON's
 * URIs carry no reference (TON has comments instead), so the chain conformance suite, which checks
 * that they do, is not run on it: `chains/sol` runs it on a real chain with payment references.
 */
export const tonReferenceChain: ChainModule = defineChain({
  definition: {
    ...tonChain.definition,
    id: 'tonref',
    name: 'TON (payment references)',
    coins: tonChain.definition.coins.map((coin) => ({ ...coin, id: coin.id === 'ton' ? 'tonref' : `${coin.id}ref` })),
    dustFloorUnits: Object.fromEntries(Object.entries(tonChain.definition.dustFloorUnits).map(([id, floor]) => [id === 'ton' ? 'tonref' : `${id}ref`, floor])),
    maxAddressIndex: 0,
    capabilities: { ...tonChain.definition.capabilities, supportsMemo: false, paymentReferences: true },
  },
  enabledByDefault: false,
  createAdapter: (deps, definition): ChainAdapter => ({
    ...tonChain.createAdapter(deps, definition),
    newPaymentReference: () => `0:${randomBytes(32).toString('hex')}`,
  }),
});
