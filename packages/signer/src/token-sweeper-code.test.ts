import test from 'ava';
import { TOKEN_SWEEPER_CREATION_CODE as GATEWAY_CODE } from '@gw/chain-evm';
import { TOKEN_SWEEPER_CREATION_CODE } from './token-sweeper-code.js';

test("the signer's copy of the sweeper creation code is the gateway's, byte for byte", (t) => {
  t.is(TOKEN_SWEEPER_CREATION_CODE, GATEWAY_CODE);
});
