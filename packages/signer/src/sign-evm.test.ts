import test from 'ava';
import type { AccountPlanFile, AccountSignedFile } from '@gw/chain-api';
import { AbiCoder, HDNodeWallet, Signature, Transaction, TypedDataEncoder, getAddress, id, verifyAuthorization, verifyTypedData } from 'ethers';
import {
  accountPlan,
  signAccountPlan,
  erc20Transfer,
  eip3009Step,
  evmSigner,
  evmTx,
  evmWallet,
  externalEvmAddress,
  SEPOLIA_CHAIN_ID,
  step,
  transferWithAuthorization,
} from './account-testing.js';
import { MNEMONIC, OTHER_MNEMONIC } from './testing.js';

const sign = (plan: AccountPlanFile, mnemonic = MNEMONIC) => signAccountPlan(plan, mnemonic);

const USDC = getAddress('0x1c7d4b196cb0c7b01d743fbc6116a902379c7238');
const SWEEPER = getAddress('0x000000000000000000000000000000000000c0de');

/** A round-1 plan with one step of each EVM kind: a native sweep, an ERC-20 transfer, a 7702 delegation, a 3009 authorization. */
function evmPlan(destination = externalEvmAddress()) {
  const native = evmTx({ to: destination, value: 1_000_000_000_000_000n, nonce: 0 });
  const token = evmTx({ to: USDC, data: erc20Transfer(destination, 2_500_000n), nonce: 7, gasLimit: 65_000n });
  const typed = transferWithAuthorization({ token: USDC, from: evmWallet(4).address, to: destination, value: 4_000_000n });
  const plan = accountPlan(
    {
      chain: 'eth',
      network: 'sepolia',
      evm_chain_id: SEPOLIA_CHAIN_ID,
      coin: 'usdc_erc20',
      method: 'eip3009',
      destination,
      moved_units: '6500000',
      sweeper_contract: SWEEPER,
    },
    [
      step({
        id: 'native-1',
        signer: evmSigner(1),
        format: 'evm-tx',
        data: native.hex,
        nonce: 0n,
        to: destination,
        moves: { eth: 1_000_000_000_000_000n },
        fee: native.fee,
      }),
      step({
        id: 'transfer-2',
        stage: 2,
        signer: evmSigner(2),
        format: 'evm-tx',
        data: token.hex,
        nonce: 7n,
        to: destination,
        moves: { usdc_erc20: 2_500_000n },
        fee: token.fee,
      }),
      step({
        id: 'auth-3',
        signer: evmSigner(3),
        format: 'evm-7702-authorization',
        data: JSON.stringify({ chainId: SEPOLIA_CHAIN_ID, address: SWEEPER, nonce: 0 }),
        nonce: 0n,
        to: SWEEPER,
        moves: {},
      }),
      eip3009Step(4, typed, destination, { usdc_erc20: 4_000_000n }),
    ],
  );
  return { plan, destination, typed };
}

test('an EVM plan: a native transfer, an ERC-20 transfer, a 7702 delegation and a 3009 authorization, each signed by the key at its path', async (t) => {
  const { plan, destination, typed } = evmPlan();
  const run = await sign(plan);
  t.is(run.code, 0, run.stderr);
  const signed = JSON.parse(run.stdout) as AccountSignedFile;
  t.like(signed, { format: 'gateway-treasury-account-signed', version: 1, plan_id: plan.plan_id, chain: 'eth', network: 'sepolia', round: 1 });
  t.deepEqual(
    signed.signed.map((s) => s.id),
    ['native-1', 'transfer-2', 'auth-3', 'auth-4'],
  );
  const [native, token, auth7702, auth3009] = signed.signed.map((s) => s.signed) as [string, string, string, string];

  // Transactions: ethers recovers the sender from the signed serialization; the unsigned part is the plan's.
  const nativeTx = Transaction.from(native);
  t.is(nativeTx.from, evmWallet(1).address);
  t.is(nativeTx.unsignedSerialized, plan.steps[0]!.unsigned.data);
  t.is(nativeTx.to, destination);
  const tokenTx = Transaction.from(token);
  t.is(tokenTx.from, evmWallet(2).address);
  t.is(tokenTx.unsignedSerialized, plan.steps[1]!.unsigned.data);

  // 7702: the authorization recovers to the deposit address (keccak(0x05 || rlp([chainId, address, nonce]))).
  t.is(verifyAuthorization({ chainId: SEPOLIA_CHAIN_ID, address: SWEEPER, nonce: 0 }, auth7702), evmWallet(3).address);
  t.is(Signature.from(auth7702).serialized, auth7702);

  // 3009: EIP-712 signature of the typed data by the deposit address.
  const types = { TransferWithAuthorization: typed.types.TransferWithAuthorization };
  t.is(verifyTypedData(typed.domain, types, typed.message, auth3009), evmWallet(4).address);
  t.is(TypedDataEncoder.hash(typed.domain, types, typed.message).length, 66);

  // The review: every step with stage, signer, recipient and amount; the destination EXTERNAL.
  t.regex(run.stderr, /Step native-1 {2}stage 1 {2}transaction \(evm-tx\)/);
  t.regex(run.stderr, /Step transfer-2 {2}stage 2/);
  t.true(run.stderr.includes(`signer    ${evmWallet(2).address}  deposit address, key m/44'/60'/0'/0/2`));
  t.true(run.stderr.includes(`sends     0.001000000000000000 ETH (1000000000000000 wei) to ${destination}`));
  t.true(run.stderr.includes(`sends     2500000 usdc_erc20 (base units) to ${destination}  (token ${USDC})`));
  t.true(run.stderr.includes(`delegates this address to contract ${SWEEPER}`));
  t.is(run.stderr.match(/!!! EXTERNAL/g)?.length, 3);
});

test('a top-up to a deposit address of the same plan is shown OWN', async (t) => {
  const gas = evmWallet(0);
  const deposit = evmWallet(5);
  const topUp = evmTx({ to: deposit.address, value: 42_000_000_000_000n, nonce: 3 });
  const destination = externalEvmAddress();
  const transfer = evmTx({ to: USDC, data: erc20Transfer(destination, 9n), nonce: 0, gasLimit: 65_000n });
  const plan = accountPlan({ chain: 'eth', network: 'sepolia', evm_chain_id: SEPOLIA_CHAIN_ID, coin: 'usdc_erc20', method: 'gas_top_up', destination }, [
    step({
      id: 'topup-5',
      signer: { address: gas.address, path: "m/44'/60'/0'/0/0", kind: 'operator', role: 'gas' },
      format: 'evm-tx',
      data: topUp.hex,
      nonce: 3n,
      to: deposit.address,
      moves: { eth: 42_000_000_000_000n },
      fee: topUp.fee,
    }),
    step({
      id: 'transfer-5',
      stage: 2,
      signer: { address: deposit.address, path: "m/44'/60'/0'/0/5" },
      format: 'evm-tx',
      data: transfer.hex,
      nonce: 0n,
      to: destination,
      moves: { usdc_erc20: 9n },
      fee: transfer.fee,
    }),
  ]);
  const run = await sign(plan);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /OWN: the signer of step transfer-5, m\/44'\/60'\/0'\/0\/5/);
  t.regex(run.stderr, /operator gas account, key m\/44'\/60'\/0'\/0\/0/);
});

test('round 2: the gas address submits a type-4 transaction carrying 7702 authorizations and a Multicall3 batch of sweeps', async (t) => {
  const gas = evmWallet(0);
  const deposits = [evmWallet(6), evmWallet(7)];
  const authorizations = deposits.map((wallet) => wallet.authorizeSync({ address: SWEEPER, nonce: 0, chainId: SEPOLIA_CHAIN_ID }));
  const multicall = getAddress('0xca11bde05977b3631167028862be2a173976ca11');
  const calls = deposits.map((wallet) => [wallet.address, false, id('sweep()').slice(0, 10)]);
  const data = id('aggregate3((address,bool,bytes)[])').slice(0, 10) + AbiCoder.defaultAbiCoder().encode(['(address,bool,bytes)[]'], [calls]).slice(2);
  const tx = Transaction.from({
    type: 4,
    chainId: SEPOLIA_CHAIN_ID,
    nonce: 11,
    to: multicall,
    data,
    gasLimit: 200_000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    authorizationList: authorizations,
  });
  const destination = externalEvmAddress();
  const plan = accountPlan(
    {
      chain: 'eth',
      network: 'sepolia',
      evm_chain_id: SEPOLIA_CHAIN_ID,
      coin: 'usdc_erc20',
      method: 'eip7702',
      destination,
      round: 2,
      sweeper_contract: SWEEPER,
    },
    [
      step({
        id: 'submit-0',
        signer: { address: gas.address, path: "m/44'/60'/0'/0/0", kind: 'operator', role: 'gas' },
        format: 'evm-tx',
        data: tx.unsignedSerialized,
        nonce: 11n,
        to: multicall,
        // What the sweeps will move (the balances the gateway read): the transaction does not fix it.
        moves: { usdc_erc20: 30_000_000n },
        fee: 200_000n * 20_000_000_000n,
      }),
    ],
  );
  const run = await sign(plan);
  t.is(run.code, 0, run.stderr);
  const signed = Transaction.from((JSON.parse(run.stdout) as AccountSignedFile).signed[0]!.signed);
  t.is(signed.from, gas.address);
  t.is(signed.type, 4);
  t.is(signed.authorizationList?.length, 2);
  for (const wallet of deposits) {
    t.true(run.stderr.includes(`carries the EIP-7702 authorization of ${wallet.address} (nonce 0) delegating to ${SWEEPER}`));
    t.true(run.stderr.includes(`sweep on ${wallet.address}, delegated to ${SWEEPER}`));
  }
});

test('a step whose signer address does not derive from the seed at its path is refused', async (t) => {
  const { plan } = evmPlan();
  // The address of index 1 claimed at the path of index 2.
  const tampered = { ...plan, steps: [{ ...plan.steps[0]!, signer: { ...plan.steps[0]!.signer, path: "m/44'/60'/0'/0/2" } }] };
  const run = await sign(tampered);
  t.is(run.code, 1);
  t.regex(run.stderr, /refused \(signer_key_mismatch\): step native-1: the secret's key at m\/44'\/60'\/0'\/0\/2 is 0x/);
  t.is(run.stdout, '');
  // Another seed altogether.
  const other = await sign(plan, OTHER_MNEMONIC);
  t.is(other.code, 1);
  t.regex(other.stderr, /signer_key_mismatch/);
});

test('a step whose summary disagrees with its unsigned transaction is refused', async (t) => {
  const { plan } = evmPlan();
  const moreMoved = { ...plan, steps: [plan.steps[0]!, { ...plan.steps[1]!, moves: { usdc_erc20: '2500001' } }] };
  const run = await sign(moreMoved);
  t.is(run.code, 1);
  t.regex(run.stderr, /refused \(plan_mismatch\): step transfer-2: the summary says it moves 2500001 usdc_erc20; its transaction moves 2500000/);

  const otherRecipient = { ...plan, steps: [{ ...plan.steps[0]!, to: externalEvmAddress() }] };
  t.regex((await sign(otherRecipient)).stderr, /refused \(plan_mismatch\): step native-1: the summary says it goes to 0x/);

  const otherNonce = { ...plan, steps: [{ ...plan.steps[0]!, nonce: '1' }] };
  t.regex((await sign(otherNonce)).stderr, /refused \(plan_mismatch\): step native-1: the summary says nonce 1; its data has nonce 0/);

  const otherFee = { ...plan, steps: [{ ...plan.steps[0]!, fee_units: '1' }] };
  t.regex((await sign(otherFee)).stderr, /refused \(fee_mismatch\)/);

  const otherDelegate = { ...plan, steps: [{ ...plan.steps[2]!, to: externalEvmAddress() }] };
  t.regex((await sign(otherDelegate)).stderr, /refused \(plan_mismatch\): step auth-3/);

  // A delegation to anything but the plan's stated sweeper, or in a plan that states none.
  const elsewhere = externalEvmAddress();
  const otherSweeper = {
    ...plan,
    steps: [
      {
        ...plan.steps[2]!,
        to: elsewhere,
        unsigned: { format: 'evm-7702-authorization' as const, data: JSON.stringify({ chainId: SEPOLIA_CHAIN_ID, address: elsewhere, nonce: 0 }) },
      },
    ],
  };
  t.regex(
    (await sign(otherSweeper)).stderr,
    /refused \(plan_mismatch\): step auth-3: the delegation is to 0x[0-9a-fA-F]{40}, not to the plan's sweeper 0x0{36}c0DE/,
  );
  const { sweeper_contract: _, ...noSweeper } = plan;
  t.regex(
    (await sign({ ...noSweeper, steps: [plan.steps[2]!] })).stderr,
    /refused \(unsupported\): step auth-3: a delegation to 0x0{36}c0DE in a plan that states no sweeper_contract/,
  );

  const typed = JSON.parse(plan.steps[3]!.unsigned.data) as ReturnType<typeof transferWithAuthorization>;
  const otherFrom = {
    ...plan,
    steps: [
      {
        ...plan.steps[3]!,
        unsigned: { format: 'evm-3009-authorization' as const, data: JSON.stringify({ ...typed, message: { ...typed.message, from: evmWallet(9).address } }) },
      },
    ],
  };
  t.regex((await sign(otherFrom)).stderr, /refused \(plan_mismatch\): step auth-4: the authorization moves tokens of 0x/);
});

test('an account plan is signed from the mnemonic only: an account private key is refused', async (t) => {
  const { plan } = evmPlan();
  const xprv = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'").extendedKey;
  const run = await sign(plan, xprv);
  t.is(run.code, 1);
  t.regex(run.stderr, /refused \(wrong_key\): Account plans \(EVM, TRON, TON\) are signed with the mnemonic/);
});

test('a wrong chain id is refused: in the transaction, the 7702 authorization (0 included), the typed data and the plan', async (t) => {
  const { plan, destination } = evmPlan();
  const mainnetTx = evmTx({ to: destination, value: 1_000_000_000_000_000n, nonce: 0, chainId: 1 });
  const wrongTx = { ...plan, steps: [{ ...plan.steps[0]!, unsigned: { format: 'evm-tx' as const, data: mainnetTx.hex } }] };
  const run = await sign(wrongTx);
  t.is(run.code, 1);
  t.regex(run.stderr, /refused \(wrong_network\): step native-1: the transaction is for chain id 1; the plan is for 11155111/);

  for (const chainId of [0, 1]) {
    const auth = {
      ...plan,
      steps: [{ ...plan.steps[2]!, unsigned: { format: 'evm-7702-authorization' as const, data: JSON.stringify({ chainId, address: SWEEPER, nonce: 0 }) } }],
    };
    t.regex((await sign(auth)).stderr, new RegExp(`refused \\(wrong_network\\): step auth-3: the authorization is for chain id ${chainId}`));
  }

  const typed = transferWithAuthorization({ token: USDC, from: evmWallet(4).address, to: destination, value: 4_000_000n, chainId: 1 });
  const wrongTyped = { ...plan, steps: [{ ...plan.steps[3]!, unsigned: { format: 'evm-3009-authorization' as const, data: JSON.stringify(typed) } }] };
  t.regex((await sign(wrongTyped)).stderr, /refused \(wrong_network\): step auth-4: the typed data is for chain id 1/);

  // The plan's own chain id must be its network's.
  t.regex((await sign({ ...plan, evm_chain_id: 1 })).stderr, /refused \(wrong_network\): Ethereum sepolia is chain id 11155111; the plan says 1/);
});
