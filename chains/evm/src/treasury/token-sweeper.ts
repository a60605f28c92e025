import { AbiCoder, getAddress, Interface, Transaction } from 'ethers';

/**
 * The EIP-7702 token sweeper (contracts/TokenSweeper.sol, next to this file): an immutable contract
 * whose only act is `sweep(token)`, sending the calling account's whole balance of `token` to the
 * destination fixed at its deployment. A deposit address delegates to it once (an EIP-7702
 * authorization signed offline); the gas address then calls `sweep` on deposit addresses in batches.
 *
 * {@link TOKEN_SWEEPER_CREATION_CODE} is the source compiled by solc 0.8.37 (optimizer 200 runs,
 * Cancun, no metadata hash: `compileSolidity` of @gw/testing); a test compiles the source again
 * and compares. The constructor argument (the destination) is appended to it at deployment and
 * ends up inside the runtime code (an immutable), not in the storage of the delegating accounts.
 */
export const TOKEN_SWEEPER_CREATION_CODE =
  '0x60a060405234801561000f575f5ffd5b5060405161041438038061041483398101604081905261002e91610087565b6001600160a01b0381166100765760405162461bcd60e51b815260206004820152600b60248201526a3232b9ba34b730ba34b7b760a91b604482015260640160405180910390fd5b6001600160a01b03166080526100b4565b5f60208284031215610097575f5ffd5b81516001600160a01b03811681146100ad575f5ffd5b9392505050565b6080516103426100d25f395f8181606801526101b101526103425ff3fe60806040526004361061002b575f3560e01c806301681a6214610036578063b269681d14610057575f5ffd5b3661003257005b5f5ffd5b348015610041575f5ffd5b506100556100503660046102c9565b6100a6565b005b348015610062575f5ffd5b5061008a7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200160405180910390f35b604080513060248083019190915282518083039091018152604490910182526020810180516001600160e01b03166370a0823160e01b17905290515f9182916001600160a01b038516916100f9916102f6565b5f60405180830381855afa9150503d805f8114610131576040519150601f19603f3d011682016040523d82523d5f602084013e610136565b606091505b509150915081801561014a57506020815110155b6101875760405162461bcd60e51b81526020600482015260096024820152683130b630b731b2a7b360b91b60448201526064015b60405180910390fd5b5f8180602001905181019061019c919061030c565b9050805f036101ab5750505050565b604080517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b039081166024830152604480830185905283518084039091018152606490920183526020820180516001600160e01b031663a9059cbb60e01b17905291519186169161022391906102f6565b5f604051808303815f865af19150503d805f811461025c576040519150601f19603f3d011682016040523d82523d5f602084013e610261565b606091505b50909350915082801561028c57508151158061028c57508180602001905181019061028c9190610323565b6102c35760405162461bcd60e51b81526020600482015260086024820152673a3930b739b332b960c11b604482015260640161017e565b50505050565b5f602082840312156102d9575f5ffd5b81356001600160a01b03811681146102ef575f5ffd5b9392505050565b5f82518060208501845e5f920191825250919050565b5f6020828403121561031c575f5ffd5b5051919050565b5f60208284031215610333575f5ffd5b815180151581146102ef575f5ffd';

export const TOKEN_SWEEPER_ABI = new Interface(['function sweep(address token)', 'function destination() view returns (address)']);

/** The creation data of a sweeper for `destination`: the creation code and the ABI-encoded destination. */
export function tokenSweeperInitCode(destination: string): string {
  return (
    TOKEN_SWEEPER_CREATION_CODE +
    AbiCoder.defaultAbiCoder()
      .encode(['address'], [getAddress(destination)])
      .slice(2)
  );
}

/**
 * The unsigned transaction that deploys a sweeper for `destination` from an operator account; the
 * contract gets `getCreateAddress({ from, nonce })`. Plans carry it as `sweeperDeploymentStep`
 * (sweeper-deployment.ts), which gateway-signer signs offline (it checks the creation code itself).
 */
export function tokenSweeperDeployment(input: {
  readonly chainId: bigint;
  readonly nonce: number;
  readonly destination: string;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  /** 400,000 covers the deployment (under 300,000 gas: 834 bytes of runtime code at 200 gas a byte, the creation and its calldata). */
  readonly gasLimit?: bigint;
}): Transaction {
  return Transaction.from({
    type: 2,
    chainId: input.chainId,
    nonce: input.nonce,
    to: null,
    value: 0n,
    data: tokenSweeperInitCode(input.destination),
    gasLimit: input.gasLimit ?? 400_000n,
    maxFeePerGas: input.maxFeePerGas,
    maxPriorityFeePerGas: input.maxPriorityFeePerGas,
  });
}

/** The EIP-7702 delegation designator an account's code shows once delegated: `0xef0100 ‖ address`. */
export function delegationCodeOf(contract: string): string {
  return `0xef0100${getAddress(contract).slice(2).toLowerCase()}`;
}

/**
 * Where the runtime code sits in {@link TOKEN_SWEEPER_CREATION_CODE} (the creation code's
 * `codecopy` of 0x342 bytes from 0xd2), and where solc wrote the `destination` immutable into it
 * (two `PUSH32` operands, zero in the creation code and filled in by the constructor).
 */
const RUNTIME_OFFSET = 0xd2;
const RUNTIME_LENGTH = 0x342;
const DESTINATION_IMMUTABLE_AT = [0x68, 0x1b1] as const;

/** The runtime code a sweeper deployed for `destination` has on chain (hex, lower case). Pure. */
export function tokenSweeperRuntimeCode(destination: string): string {
  const runtime = TOKEN_SWEEPER_CREATION_CODE.slice(2 + RUNTIME_OFFSET * 2, 2 + (RUNTIME_OFFSET + RUNTIME_LENGTH) * 2);
  const word = getAddress(destination).slice(2).toLowerCase().padStart(64, '0');
  let code = runtime;
  for (const at of DESTINATION_IMMUTABLE_AT) code = code.slice(0, at * 2) + word + code.slice(at * 2 + 64);
  return `0x${code.toLowerCase()}`;
}

/**
 * True when `code` (an account's code as `eth_getCode` answers it) is exactly the token sweeper's
 * runtime for `destination`: a recorded sweeper is used only after this holds, so an address with
 * other code (or none, or a sweeper of another destination) never becomes a 7702 delegate. Pure.
 */
export function isTokenSweeperCode(code: string, destination: string): boolean {
  return typeof code === 'string' && code.toLowerCase() === tokenSweeperRuntimeCode(destination);
}
