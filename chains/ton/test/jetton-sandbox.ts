/**
 * A {@link ToncenterSandbox} with a TEP-74 jetton (the real minter and wallet code of
 * @ton-community/assets-sdk): a payer holding 100,000,000 base units of it pays the accounts a test
 * sweeps, and `cold` is a wallet to sweep to. For the account treasury's tests and the signer's.
 */
import { Address, beginCell, toNano } from '@ton/core';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter.js';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet.js';
import { ToncenterSandbox } from './toncenter-sandbox.js';

export interface JettonSandbox {
  readonly sandbox: ToncenterSandbox;
  readonly cold: SandboxContract<TreasuryContract>;
  /** The jetton's master. */
  readonly minter: Address;
  /** The payer sends `ton` (non-bounceable), then `jettons` (a transfer with a notification, excess returned); a zero is not sent. Each lands in a block of its own. */
  pay(address: string, ton: bigint, jettons?: bigint): Promise<void>;
  tonOf(address: Address | string): Promise<bigint>;
  /** The owner's jetton balance: 0 while its jetton wallet is not deployed. */
  jettonsOf(owner: Address | string): Promise<bigint>;
}

const parse = (address: Address | string) => (typeof address === 'string' ? Address.parse(address) : address);

export async function jettonSandbox(): Promise<JettonSandbox> {
  const sandbox = await ToncenterSandbox.create(52_000_000, 1_760_000_000);
  const bc = sandbox.blockchain;
  const payer = await bc.treasury('payer');
  const issuer = await bc.treasury('issuer');
  const cold = await bc.treasury('cold');
  const minter = bc.openContract(JettonMinter.createFromConfig({ admin: issuer.address, content: beginCell().storeUint(0, 8).endCell() }));
  await sandbox.commit(() => minter.sendDeploy(issuer.getSender(), toNano('1')));
  await sandbox.commit(() => minter.sendMint(issuer.getSender(), payer.address, 100_000_000n, { value: toNano('0.2') }));
  const payerJettons = bc.openContract(JettonWallet.createFromAddress(await minter.getWalletAddress(payer.address)));
  return {
    sandbox,
    cold,
    minter: minter.address,
    async pay(address, ton, jettons = 0n) {
      if (ton > 0n) await sandbox.commit(() => payer.send({ to: parse(address), value: ton, bounce: false }));
      if (jettons > 0n)
        await sandbox.commit(() =>
          payerJettons.send(payer.getSender(), parse(address), jettons, { notify: { amount: 1n }, returnExcess: true, value: toNano('0.1') }),
        );
    },
    async tonOf(address) {
      return (await bc.getContract(parse(address))).balance;
    },
    async jettonsOf(owner) {
      const wallet = bc.openContract(JettonWallet.createFromAddress(await minter.getWalletAddress(parse(owner))));
      const contract = await bc.getContract(wallet.address);
      return contract.accountState?.type === 'active' ? (await wallet.getData()).balance : 0n;
    },
  };
}
