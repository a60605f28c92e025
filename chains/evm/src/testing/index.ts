/** Test helpers of @gw/chain-evm (`@gw/chain-evm/testing`): never imported by the server. */
export { signAccountStep } from './sign-account-step.js';
