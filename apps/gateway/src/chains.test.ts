import test from 'ava';
import { ALL_CHAINS } from '@gw/testing';
import { chains } from './chains.js';

// The tests' chain list (`@gw/testing`, which cannot depend on this app) is this build's.
test('@gw/testing’s ALL_CHAINS are the chain modules of the composition, in its order', (t) => {
  t.deepEqual(
    ALL_CHAINS.map((chain) => chain.definition.id),
    chains.map((chain) => chain.definition.id),
  );
  t.true(ALL_CHAINS.every((chain, i) => chain === chains[i]));
});
