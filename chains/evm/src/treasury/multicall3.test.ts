import test from 'ava';
import { AbiCoder, Wallet } from 'ethers';
import { decodeAggregate3, encodeAggregate3, MULTICALL3_ABI } from './multicall3.js';

const calls = [
  { target: Wallet.createRandom().address, allowFailure: true, callData: MULTICALL3_ABI.encodeFunctionData('getEthBalance', [Wallet.createRandom().address]) },
  { target: Wallet.createRandom().address, allowFailure: false, callData: '0x' },
  { target: Wallet.createRandom().address, allowFailure: true, callData: `0x${'ab'.repeat(37)}` },
];

test('aggregate3 calldata is what the ABI coder makes, byte for byte', (t) => {
  t.is(encodeAggregate3(calls), MULTICALL3_ABI.encodeFunctionData('aggregate3', [calls.map((c) => [c.target, c.allowFailure, c.callData])]));
  t.is(encodeAggregate3([]), MULTICALL3_ABI.encodeFunctionData('aggregate3', [[]]));
});

test('aggregate3 answers read as the ABI coder reads them; a failed call is null', (t) => {
  const answers: [boolean, string][] = [
    [true, AbiCoder.defaultAbiCoder().encode(['uint256'], [12345n])],
    [false, '0x08c379a0'],
    [true, '0x'],
    [true, `0x${'cd'.repeat(33)}`],
  ];
  const encoded = MULTICALL3_ABI.encodeFunctionResult('aggregate3', [answers]);
  t.deepEqual(decodeAggregate3(encoded), [answers[0]![1], null, '0x', answers[3]![1]]);
  t.throws(() => decodeAggregate3(encoded.slice(0, encoded.length - 64)));
});
