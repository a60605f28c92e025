/**
 * What tests of the TRON treasury share (this package's and the signer's end to end): a local
 * java-tron node that replays the recorded real Nile answers of test/fixtures/treasury (see its
 * README), the recordings' account and test token, Nile with that token as `usdt_trc20`, and the
 * accounts of the BIP39 test mnemonic (pool addresses at account 0, operator accounts at account 1).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HDNodeWallet, Mnemonic } from 'ethers';
import {
  ProviderPool,
  type AccountKey,
  type AccountSource,
  type AccountTreasury,
  type ChainAdapterDeps,
  type ChainDefinition,
  type OperatorAccount,
} from '@gw/chain-api';
import { tronChain } from '../index.js';
import { deriveTronAddress, tronAddressFromHex } from '../derive.js';
import { hexAddress } from '../treasury/offline-transaction.js';

/** A recorded answer of test/fixtures/treasury, as text. */
export const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/treasury/${name}`, import.meta.url), 'utf8');
/** A recorded answer, parsed. */
export const json = (name: string): any => JSON.parse(fixture(name));
/** A recorded answer of the watcher's fixtures (test/fixtures, mainnet blocks; see its README), parsed. */
export const watcherFixture = (name: string): any => JSON.parse(readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8'));

/** The recorded Nile account (balance 1793.2272 TRX), in java-tron's hex form. */
export const RECORDED_ACCOUNT_HEX = '41dd791d6b49e190062d650e6a23c575510d35f2f9';
export const RECORDED_ACCOUNT = tronAddressFromHex(`0x${RECORDED_ACCOUNT_HEX.slice(2)}`);
/** The Nile test USDT contract of the recordings. */
export const NILE_TOKEN = tronAddressFromHex('0xeca9bc828a3005b9a3b909f2cc5c2a54794de05f');

/** TRON Nile, and the TRON definition with the recordings' test USDT contract as `usdt_trc20` there (the shipped one lists mainnet's only). */
export const NILE = tronChain.definition.networks.testnets.find((n) => n.id === 'nile')!;
export const nileDefinition: ChainDefinition = {
  ...tronChain.definition,
  coins: tronChain.definition.coins.map((c) => (c.id === 'usdt_trc20' ? { ...c, contracts: { nile: NILE_TOKEN } } : c)),
};

/** The BIP39 test mnemonic. */
export const TRON_TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
export const testRoot = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(TRON_TEST_MNEMONIC).computeSeed());
/** The pool's account key: the xpub of m/44'/195'/0'. */
export const TEST_XPUB = testRoot.derivePath("m/44'/195'/0'").neuter().extendedKey;
export const TEST_KEY: AccountKey = { chain: 'tron', network: 'testnet', input: TEST_XPUB, canonical: TEST_XPUB };
/** Pool address `i` (receive address of account 0). */
export const pool = (i: number): string => deriveTronAddress(TEST_XPUB, i).address;
export const source = (i: number): AccountSource => ({ address: pool(i), key: TEST_KEY, index: i });
/** An operator account at m/44'/195'/1'/0/`i`. */
export const operatorAccount = (role: OperatorAccount['role'], i: number): OperatorAccount => ({
  role,
  address: tronAddressFromHex(testRoot.derivePath(`m/44'/195'/1'/0/${i}`).address),
  path: `m/44'/195'/1'/0/${i}`,
});
export const FUNDING = operatorAccount('funding', 0);
export const STAKING = operatorAccount('staking', 1);

/** The recorded `getaccount` answer as the account at `address`, with `edit` applied (the test names what it changes). */
export function accountAnswer(address: string, edit: (a: any) => void = () => {}): string {
  const answer = json('getaccount-nile.json');
  answer.address = hexAddress(address);
  edit(answer);
  return JSON.stringify(answer);
}

/** A java-tron answer to a path and JSON body, or undefined where there is none. */
export type Handler = (path: string, body: any) => string | undefined;

export interface Replay {
  readonly url: string;
  readonly requests: { path: string; body: any }[];
  close(): Promise<void>;
}

/** A java-tron node answering by `handler`; anything it has no answer for is a 404 (a test asking for an unrecorded call fails). */
export async function replay(handler: Handler): Promise<Replay> {
  const requests: Replay['requests'] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      requests.push({ path: req.url ?? '', body });
      const answer = handler(req.url ?? '', body);
      res.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(answer ?? '{"Error":"unrecorded"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The TRON treasury of {@link nileDefinition} on Nile, reading `node`. */
export function treasuryFor(node: Replay): AccountTreasury {
  const providers = new ProviderPool({ chain: 'tron', network: 'nile', endpoints: [{ name: 'replay', url: node.url }], timeoutMs: 5_000 });
  return tronChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, nileDefinition).createAccountTreasury!({ network: NILE, providers });
}

/**
 * Answers most tests share: head block, chain parameters, and per account (java-tron hex address)
 * its `getaccount` answer, the recorded account's own and its resources; `extra` answers first.
 */
export function baseAnswers(accounts: Record<string, string>, extra: Handler = () => undefined): Handler {
  return (path, body) => {
    const own = extra(path, body);
    if (own !== undefined) return own;
    switch (path) {
      case '/wallet/getnowblock':
        return fixture('getnowblock-nile-66987627.json');
      case '/wallet/getchainparameters':
        return fixture('getchainparameters-nile.json');
      case '/wallet/getaccount':
        return body.address === RECORDED_ACCOUNT_HEX ? fixture('getaccount-nile.json') : (accounts[body.address] ?? '{}');
      case '/wallet/getaccountresource':
        return accounts[body.address] === undefined && body.address !== RECORDED_ACCOUNT_HEX ? '{}' : fixture('getaccountresource-nile.json');
      default:
        return undefined;
    }
  };
}
