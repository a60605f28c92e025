import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/**
 * The settings every contract of the repository is compiled with: solc 0.8.37 (the `solc` npm
 * package, the official compiler built to JavaScript), optimizer at 200 runs, the Cancun EVM (every
 * network the gateway watches runs it), and no metadata hash, so the bytecode depends on the code
 * only (not on comments or file paths) and anybody can compile the source again to the same bytes.
 */
export const SOLIDITY_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

export interface CompiledContract {
  readonly abi: unknown[];
  /** Creation bytecode, 0x-hex (constructor arguments are appended to it). */
  readonly bytecode: string;
  readonly deployedBytecode: string;
}

/**
 * Compiles Solidity source files (by path) with {@link SOLIDITY_SETTINGS}; imports of
 * `@openzeppelin/contracts/...` resolve to the installed 4.9.6 package. Returns every contract by
 * name. Throws with the compiler's messages on any error.
 */
export function compileSolidity(paths: readonly string[]): Record<string, CompiledContract> {
  const solc = require('solc') as { compile(input: string, options: { import: (path: string) => { contents: string } | { error: string } }): string };
  const sources = Object.fromEntries(paths.map((path) => [path, { content: readFileSync(path, 'utf8') }]));
  const input = JSON.stringify({ language: 'Solidity', sources, settings: SOLIDITY_SETTINGS });
  const output = JSON.parse(
    solc.compile(input, {
      import: (path) => {
        try {
          return { contents: readFileSync(path.startsWith('@') ? require.resolve(path) : path, 'utf8') };
        } catch (error) {
          return { error: (error as Error).message };
        }
      },
    }),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contracts: Record<string, CompiledContract> = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(file)) {
      contracts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, deployedBytecode: `0x${contract.evm.deployedBytecode.object}` };
    }
  }
  return contracts;
}

/** The test contracts of packages/testing/contracts (a Multicall3 subset, an EIP-3009 token), compiled. */
export function testContracts(): Record<string, CompiledContract> {
  return compileSolidity([join(here, '..', 'contracts', 'Multicall3Subset.sol'), join(here, '..', 'contracts', 'Eip3009Token.sol')]);
}
