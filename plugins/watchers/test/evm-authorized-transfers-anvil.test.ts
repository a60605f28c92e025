/**
 * EIP-3009 authorized transfers of the EVM account treasury (`AccountTreasury.authorizedTransfers`
 * of @gw/chain-evm, issue 41: what x402's `exact` scheme needs of a chain) against a real anvil and
 * the EIP-3009 test token (packages/testing/contracts/Eip3009Token.sol). A payer signs
 * `TransferWithAuthorization` with ethers as an x402 client does; a gas wallet signs the settlement
 * the treasury builds. Lives with the watchers' real-node tests because chain packages take no
 * dependency on @gw/testing.
 */
import test from 'ava';
import type { AuthorizationDomain, AuthorizedTransfers, TransferAuthorization } from '@gw/kernel';
import { waitFor } from '@gw/kernel/testing';
import { EvmTreasuryChain, signTransferAuthorization } from '@gw/testing';
import { getAddress, hexlify, Interface, randomBytes, Signature, Transaction, Wallet } from 'ethers';

const USDC = 10n ** 6n;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const PAID = 50n * USDC;

let chain: EvmTreasuryChain;
let transfers: AuthorizedTransfers;
let domain: AuthorizationDomain;
const payer = Wallet.createRandom();
const gasWallet = Wallet.createRandom();
const payTo = EvmTreasuryChain.freshAddress();

test.before(async () => {
  chain = await EvmTreasuryChain.start();
  transfers = chain.treasury.authorizedTransfers!;
  await chain.anvil.sendToken(chain.contracts.eip3009, chain.funder, payer.address, PAID);
  await chain.anvil.sendEth(chain.funder, gasWallet.address, 10n ** 18n);
  domain = (await transfers.domain('usdc'))!;
});
test.after.always(async () => {
  await chain?.stop();
});

/** The chain's time now (the latest block's timestamp), Unix seconds. */
async function chainNow(): Promise<bigint> {
  const block = await chain.anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
  return BigInt(block.timestamp);
}

/** An authorization of `value` from the payer to `payTo`, valid for five minutes, and the payer's signature of it. */
async function authorize(value: bigint, extra: Partial<TransferAuthorization> = {}): Promise<{ authorization: TransferAuthorization; signature: string }> {
  const authorization: TransferAuthorization = {
    from: payer.address,
    to: payTo,
    value,
    validAfter: 0n,
    validBefore: (await chainNow()) + 300n,
    nonce: hexlify(randomBytes(32)),
    ...extra,
  };
  const signature = await signTransferAuthorization(payer, domain, authorization);
  return { authorization, signature };
}

/** Builds the settlement from the gas wallet, signs it, sends it; its hash and the signed transaction. */
async function settle(authorization: TransferAuthorization, signature: string, gasUnits: bigint): Promise<{ hash: string; signed: string }> {
  const nonce = await transfers.pendingNonce(gasWallet.address);
  const { unsigned } = await transfers.settlement(domain, authorization, signature, { address: gasWallet.address, nonce, gasUnits });
  const tx = Transaction.from(unsigned);
  tx.signature = gasWallet.signingKey.sign(tx.unsignedHash);
  const signed = tx.serialized;
  return { hash: await transfers.send(signed), signed };
}

test.serial('the domain of an EIP-3009 token is read from the chain; a plain ERC-20, the native coin and an unknown coin have none', async (t) => {
  t.deepEqual(domain, { name: 'USD Coin', version: '2', chainId: 31337n, verifyingContract: getAddress(chain.contracts.eip3009) });
  t.deepEqual(await transfers.domain('usdc'), domain);
  t.is(await transfers.domain('tok'), undefined);
  t.is(await transfers.domain('eth'), undefined);
  t.is(await transfers.domain('nope'), undefined);
});

test.serial('signer: the payer’s signature recovers to the payer; a tampered authorization to someone else; a malformed signature to null', async (t) => {
  const { authorization, signature } = await authorize(USDC);
  t.is(transfers.signer(domain, authorization, signature), payer.address);
  t.not(transfers.signer(domain, { ...authorization, value: 2n * USDC }, signature), payer.address);
  t.not(transfers.signer({ ...domain, version: '1' }, authorization, signature), payer.address);
  const parsed = Signature.from(signature);
  // The same signature in its other form (s' = n − s, v flipped): valid ECDSA, refused by EIP-2 and by ethers.
  const highS = `${parsed.r}${(SECP256K1_N - BigInt(parsed.s)).toString(16).padStart(64, '0')}${(55 - parsed.v).toString(16)}`;
  for (const bad of [signature.slice(0, -2), `${signature}00`, `0x${'00'.repeat(65)}`, signature.replace(/^0x../, '0xzz'), highS, '', 'not hex'])
    t.is(transfers.signer(domain, authorization, bad), null, bad);
  t.is(transfers.signer(domain, { ...authorization, nonce: '0x1234' }, signature), null);
  t.is(transfers.signer(domain, { ...authorization, from: 'not an address' }, signature), null);
});

test.serial('inspect a fresh authorization: nonce unused, the balance, a simulation that passes with its gas', async (t) => {
  const { authorization, signature } = await authorize(3n * USDC);
  const inspection = await transfers.inspect(domain, authorization, signature, gasWallet.address);
  t.false(inspection.nonceUsed);
  t.is(inspection.balanceUnits, PAID);
  t.true(inspection.simulation.ok);
  const gas = inspection.simulation.ok ? inspection.simulation.gasUnits : 0n;
  t.true(gas > 21_000n && gas < 200_000n, String(gas));
});

test.serial('settle: the unsigned transaction, sent; the receipt logs the transfer; then the nonce is used and the simulation reverts', async (t) => {
  const value = 7n * USDC;
  const { authorization, signature } = await authorize(value);
  const before = await transfers.inspect(domain, authorization, signature, gasWallet.address);
  if (!before.simulation.ok) return t.fail(before.simulation.reason);
  const gasUnits = before.simulation.gasUnits;
  const nonce = await transfers.pendingNonce(gasWallet.address);
  const settlement = await transfers.settlement(domain, authorization, signature, { address: gasWallet.address, nonce, gasUnits });
  const tx = Transaction.from(settlement.unsigned);
  t.is(tx.type, 2);
  t.is(tx.chainId, 31337n);
  t.is(tx.to, getAddress(chain.contracts.eip3009));
  t.is(tx.value, 0n);
  t.is(BigInt(tx.nonce), nonce);
  t.is(settlement.nonce, nonce);
  t.is(settlement.gasLimit, (gasUnits * 5n + 3n) / 4n);
  t.is(tx.gasLimit, settlement.gasLimit);
  t.is(settlement.maxSpendUnits, settlement.gasLimit * tx.maxFeePerGas!);
  const call = new Interface(['function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)']).decodeFunctionData(
    'transferWithAuthorization',
    tx.data,
  );
  const sig = Signature.from(signature);
  t.deepEqual(
    [...call].map(String),
    [payer.address, getAddress(payTo), value, 0n, authorization.validBefore, authorization.nonce, sig.v, sig.r, sig.s].map(String),
  );

  tx.signature = gasWallet.signingKey.sign(tx.unsignedHash);
  const gasBefore = await transfers.nativeBalance(gasWallet.address);
  const hash = await transfers.send(tx.serialized);
  t.is(hash, tx.hash!);
  const receipt = await waitFor(() => transfers.receipt(hash, authorization, domain), 20_000, 'the settlement mined');
  t.true(receipt.success);
  t.true(receipt.transferLogged);
  t.true(receipt.blockNumber > 0n);
  // The same receipt does not carry another authorization's transfer.
  t.false((await transfers.receipt(hash, { ...authorization, value: value + 1n }, domain))!.transferLogged);
  t.false((await transfers.receipt(hash, { ...authorization, to: EvmTreasuryChain.freshAddress() }, domain))!.transferLogged);
  t.is(await chain.balanceOf(chain.contracts.eip3009, payTo), value);
  const gasAfter = await transfers.nativeBalance(gasWallet.address);
  t.true(gasBefore - gasAfter > 0n && gasBefore - gasAfter <= settlement.maxSpendUnits);
  t.is(await transfers.pendingNonce(gasWallet.address), nonce + 1n);
  // Sent again (a retry): the node has it; the same hash.
  t.is(await transfers.send(tx.serialized), hash);

  const after = await transfers.inspect(domain, authorization, signature, gasWallet.address);
  t.true(after.nonceUsed);
  t.is(after.balanceUnits, PAID - value);
  t.deepEqual(after.simulation, { ok: false, reason: 'authorization is used' });
});

test.serial('receipt: null until the settlement is mined; the pending nonce counts it', async (t) => {
  const { authorization, signature } = await authorize(USDC);
  const inspection = await transfers.inspect(domain, authorization, signature, gasWallet.address);
  if (!inspection.simulation.ok) return t.fail(inspection.simulation.reason);
  const nonce = await transfers.pendingNonce(gasWallet.address);
  await chain.anvil.pauseMining();
  try {
    const { hash } = await settle(authorization, signature, inspection.simulation.gasUnits);
    t.is(await transfers.receipt(hash, authorization, domain), null);
    t.is(await transfers.pendingNonce(gasWallet.address), nonce + 1n);
    await chain.anvil.mine(1);
    const receipt = await waitFor(() => transfers.receipt(hash, authorization, domain), 20_000, 'the settlement mined');
    t.true(receipt.success && receipt.transferLogged);
  } finally {
    await chain.anvil.resumeMining();
  }
});

test.serial('minedNonce counts mined transactions only; transactionKnown: a pooled or mined transaction yes, a dropped or unknown one no', async (t) => {
  const { authorization, signature } = await authorize(USDC);
  const inspection = await transfers.inspect(domain, authorization, signature, gasWallet.address);
  if (!inspection.simulation.ok) return t.fail(inspection.simulation.reason);
  const mined = await transfers.minedNonce(gasWallet.address);
  t.is(mined, await transfers.pendingNonce(gasWallet.address));
  t.false(await transfers.transactionKnown(hexlify(randomBytes(32))));
  await chain.anvil.pauseMining();
  try {
    const { hash } = await settle(authorization, signature, inspection.simulation.gasUnits);
    t.true(await transfers.transactionKnown(hash));
    t.is(await transfers.minedNonce(gasWallet.address), mined);
    t.is(await transfers.pendingNonce(gasWallet.address), mined + 1n);
    await chain.anvil.rpc('anvil_dropTransaction', [hash]);
    t.false(await transfers.transactionKnown(hash));
    t.is(await transfers.pendingNonce(gasWallet.address), mined);

    const again = await settle(authorization, signature, inspection.simulation.gasUnits);
    await chain.anvil.mine(1);
    t.true(await transfers.transactionKnown(again.hash));
    t.is(await transfers.minedNonce(gasWallet.address), mined + 1n);
  } finally {
    await chain.anvil.resumeMining();
  }
  await t.throwsAsync(transfers.transactionKnown('0x1234'), { message: /Not a transaction hash/ });
});

test.serial('an authorization of more than the balance, or an expired one, fails the simulation with the token’s reason', async (t) => {
  const balance = await chain.balanceOf(chain.contracts.eip3009, payer.address);
  const over = await authorize(balance + 1n);
  const tooMuch = await transfers.inspect(domain, over.authorization, over.signature, gasWallet.address);
  t.false(tooMuch.nonceUsed);
  t.is(tooMuch.balanceUnits, balance);
  t.deepEqual(tooMuch.simulation, { ok: false, reason: 'ERC20: transfer amount exceeds balance' });

  const expired = await authorize(USDC, { validBefore: (await chainNow()) - 1n });
  const late = await transfers.inspect(domain, expired.authorization, expired.signature, gasWallet.address);
  t.deepEqual(late.simulation, { ok: false, reason: 'authorization is expired' });

  const early = await authorize(USDC, { validAfter: (await chainNow()) + 3600n });
  t.deepEqual((await transfers.inspect(domain, early.authorization, early.signature, gasWallet.address)).simulation, {
    ok: false,
    reason: 'authorization is not yet valid',
  });

  // Signed by someone else than `from`.
  const { authorization } = await authorize(USDC);
  const forged = await signTransferAuthorization(Wallet.createRandom(), domain, authorization);
  t.deepEqual((await transfers.inspect(domain, authorization, forged, gasWallet.address)).simulation, { ok: false, reason: 'invalid signature' });
});

test.serial('send refuses what is not a signed transaction of this chain; the node’s refusal is an error', async (t) => {
  await t.throwsAsync(() => transfers.send('0x1234'), { message: /Not a signed EVM transaction/ });
  const { authorization, signature } = await authorize(USDC);
  const other = Transaction.from(
    (await transfers.settlement(domain, authorization, signature, { address: gasWallet.address, nonce: 0n, gasUnits: 100_000n })).unsigned,
  );
  await t.throwsAsync(() => transfers.send(other.unsignedSerialized), { message: /not signed/ });
  other.signature = gasWallet.signingKey.sign(other.unsignedHash);
  // Nonce 0 is long used by another transaction of the gas wallet: the node refuses it.
  await t.throwsAsync(() => transfers.send(other.serialized), { message: /refused/ });
});
