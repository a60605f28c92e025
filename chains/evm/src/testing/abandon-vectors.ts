import { HDNodeWallet, Mnemonic } from 'ethers';

/** The BIP39 test mnemonic ("abandon" × 11, "about"), whose EVM vectors wallets and libraries publish. */
export const ABANDON_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Its account xpub at m/44'/60'/0' (chains/evm's tests recompute it from the phrase). */
export const ABANDON_EVM_XPUB = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';

/** Its receive addresses m/44'/60'/0'/0/0 and /1, EIP-55 checksummed (MetaMask, Trezor and ethers test suites). */
export const ABANDON_EVM_ADDRESSES = ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0'] as const;

/** The mnemonic's BIP32 root, for deriving and signing with ethers. */
export const abandonRoot = (): HDNodeWallet => HDNodeWallet.fromSeed(Mnemonic.fromPhrase(ABANDON_MNEMONIC).computeSeed());
