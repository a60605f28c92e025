import test from 'ava';
import { Signature, Transaction, Wallet } from 'ethers';
import { ERC20_ABI, transferData } from './erc20.js';
import { EIP3009_ABI } from './eip3009-probe.js';
import { transferWithAuthorizationData } from './plan-eip3009.js';
import { evmTransaction, unsignedSerialized } from './plan-steps.js';

const to = Wallet.createRandom().address;
const fees = { chainId: 11155111n, maxFeePerGas: 30_000_000_123n, maxPriorityFeePerGas: 1_000_000n };

test('a type-2 transaction serialized by hand is what ethers serializes, byte for byte', (t) => {
  for (const fields of [
    { nonce: 0n, to, value: 0n, data: '0x', gasLimit: 21_000n },
    { nonce: 127n, to, value: 10n ** 18n + 7n, data: transferData(to, 123n), gasLimit: 65_000n },
    { nonce: 300n, to, value: 1n, data: `0x${'00'.repeat(60)}`, gasLimit: 1n },
  ]) {
    const hand = unsignedSerialized(fees, fields);
    t.is(hand, evmTransaction(fees, fields).unsignedSerialized);
    t.is(Transaction.from(hand).to, to);
  }
});

test('transfer and transferWithAuthorization calldata written by hand are what the ABI coder makes', (t) => {
  t.is(transferData(to, 10n ** 30n), ERC20_ABI.encodeFunctionData('transfer', [to, 10n ** 30n]));
  const message = { from: Wallet.createRandom().address, to, value: '123456789', validAfter: '0', validBefore: '1800000000', nonce: `0x${'ab'.repeat(32)}` };
  const signature = Signature.from(Wallet.createRandom().signingKey.sign(`0x${'01'.repeat(32)}`));
  t.is(
    transferWithAuthorizationData(message, signature),
    EIP3009_ABI.encodeFunctionData('transferWithAuthorization', [
      message.from,
      message.to,
      BigInt(message.value),
      0n,
      BigInt(message.validBefore),
      message.nonce,
      signature.v,
      signature.r,
      signature.s,
    ]),
  );
});
