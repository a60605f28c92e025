import test from 'ava';
import { Wallet } from 'ethers';
import { isTokenSweeperCode, TOKEN_SWEEPER_CREATION_CODE, tokenSweeperRuntimeCode } from './token-sweeper.js';

const destination = Wallet.createRandom().address;

test('the runtime of a sweeper: 834 bytes cut from the creation code, the destination written at both immutable places', (t) => {
  const code = tokenSweeperRuntimeCode(destination);
  t.is((code.length - 2) / 2, 0x342);
  t.true(TOKEN_SWEEPER_CREATION_CODE.endsWith(tokenSweeperRuntimeCode('0x0000000000000000000000000000000000000000').slice(2)));
  t.is(code.split(destination.slice(2).toLowerCase()).length - 1, 2);
});

test('isTokenSweeperCode: only the exact runtime for that destination', (t) => {
  const code = tokenSweeperRuntimeCode(destination);
  t.true(isTokenSweeperCode(code, destination));
  t.true(isTokenSweeperCode(code.toUpperCase().replace('0X', '0x'), destination.toLowerCase()));
  t.false(isTokenSweeperCode(code, Wallet.createRandom().address));
  t.false(isTokenSweeperCode('0x', destination));
  t.false(isTokenSweeperCode(`${code}00`, destination));
});
