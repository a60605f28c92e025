import type { TestFn } from 'ava';
import { pino } from 'pino';
import { checkChainDefinition, usesPaymentReferences, type ChainAdapter, type ChainModule, type PaymentUriInput } from '../chain.js';
import type { NetworkKind } from '../network.js';
import { createChainRegistry, type ChainRegistryOptions } from '../chain-registry.js';
import { isAppError } from '../errors/app-error.js';
import { fromBaseUnits, toBaseUnits } from '../units/index.js';
import { ProviderPool } from '../watch/index.js';

/**
 * Published derivation vectors of one network kind: an account key and addresses derived from it.
 * A chain with payment references gives its recipient address as `key` and that same address at
 * index 0 as its one derived address.
 */
export interface DerivationVectors {
  /** The account-level key as a wallet exports it. */
  readonly key: string;
  /** Receive addresses by index, with their full paths. */
  readonly addresses: readonly { readonly index: number; readonly address: string; readonly path: string }[];
  /** Where the vectors come from (a BIP's test vectors, a wallet's fixtures, a library's derivation). */
  readonly source: string;
}

/** A payment URI the chain must build, exactly. */
export interface PaymentUriVector {
  readonly input: PaymentUriInput;
  readonly uri: string;
}

/** What a chain hands the conformance suite: its module and its own vectors. */
export interface ChainConformance {
  readonly module: ChainModule;
  readonly vectors: Readonly<Record<NetworkKind, DerivationVectors>>;
  /**
   * Whether a key of one network kind is refused for the other (`wallet_kind_mismatch`): true where
   * keys encode their network (BIP32 versions), false where they do not (EVM, TRON, Cardano, TON).
   */
  readonly keysEncodeNetwork: boolean;
  /**
   * Signs `message` with the private key of receive index 0 of `vectors[network].key`, using the
   * chain's own signing library (bitcoinjs-message, bip322-js, ethers, TronWeb, Cardano's
   * message-signing library, TON's), in the form an operator's wallet produces.
   */
  readonly sign: (message: string, network: NetworkKind) => Promise<string> | string;
  /**
   * Signs `message` with the same key in the form `verifyAddressSignature` takes (a payer's wallet
   * signing for receive address 0), where it differs from `sign`'s (Cardano, TON). Default: `sign`.
   */
  readonly signForAddress?: (message: string, network: NetworkKind) => Promise<string> | string;
  /**
   * The account key `sign` signs for, per network kind, when it is not the vectors' key (published
   * vectors whose private key is not published, as TON's). Default: `vectors[network].key`.
   */
  readonly proofKeys?: Partial<Record<NetworkKind, string>>;
  /** Network kinds the ownership proof is checked on (default both). */
  readonly proofNetworks?: readonly NetworkKind[];
  /** Payment URIs of the chain's standard (at least one per coin kind: native and token). */
  readonly paymentUris: readonly PaymentUriVector[];
  /** Strings that are not receive addresses of the chain on `network`. */
  readonly invalidAddresses: Readonly<Record<NetworkKind, readonly string[]>>;
}

const KINDS: readonly NetworkKind[] = ['mainnet', 'testnet'];

/**
 * The adapter of one chain module as the gateway builds it from config (`chains.testNetworks`,
 * `chains.testTokenContracts`): through the chain registry, with a silent logger.
 */
export function configuredAdapter(module: ChainModule, options: Omit<ChainRegistryOptions, 'enabled'> = {}): ChainAdapter {
  const id = module.definition.id;
  return createChainRegistry([module], pino({ level: 'silent' }), { ...options, enabled: [id] }).get(id);
}

/**
 * The chain conformance suite: the checks every chain passes, whatever its family. Registers ava
 * tests named after the chain: the definition is consistent and enabled through the registry;
 * derivation reproduces the chain's published vectors on both network kinds and is deterministic;
 * derived addresses validate and the given invalid ones do not (and validation never throws);
 * every coin's units round-trip exactly; payment URIs are built byte for byte; an ownership proof
 * signed by the chain's own library verifies, a proof of another message does not, and an
 * unparseable signature is `validation_error`; so does an address signature (a payer's wallet
 * signing for receive address 0), and not for another message or address; keys of the other
 * network kind are refused where keys encode it; sandbox key generation, where declared, yields
 * keys that parse and derive; with payment references, the key is the one recipient address (nothing
 * derives beyond index 0), references are fresh valid addresses and payment URIs carry them.
 */
export function chainConformance(test: TestFn, chain: ChainConformance): void {
  const { definition } = chain.module;
  const id = definition.id;
  const adapter: ChainAdapter = configuredAdapter(chain.module);

  test(`${id} conformance: the definition is consistent, every coin has a price asset, the registry enables it`, (t) => {
    t.notThrows(() => checkChainDefinition(definition));
    t.true(definition.coins.length > 0);
    for (const coin of definition.coins) t.regex(coin.price.symbol, /^[A-Z][A-Z0-9]*$/, coin.id);
    t.is(definition.coins.filter((coin) => !coin.contracts).length, 1, 'exactly one native coin');
    t.is(typeof adapter.createWatcher, 'function');
    t.is(typeof adapter.generateAccountKey === 'function', definition.capabilities.sandboxKeyGeneration);
    t.is(typeof adapter.newPaymentReference === 'function', usesPaymentReferences(definition));
  });

  for (const network of KINDS) {
    const vectors = chain.vectors[network];
    test(`${id} conformance: ${network} derivation vectors (${vectors.source})`, (t) => {
      const key = adapter.parseAccountKey(vectors.key, network);
      t.is(key.chain, id);
      t.is(key.network, network);
      t.is(adapter.parseAccountKey(` ${vectors.key}\n`, network).canonical, key.canonical, 'surrounding whitespace is ignored');
      for (const expected of vectors.addresses) {
        const derived = adapter.deriveAddress(key, expected.index);
        t.deepEqual(derived, expected);
        t.regex(derived.path, /^m(\/\d+'?)+$/);
        t.true(derived.path.startsWith(`${definition.accountPath[network]}/`), derived.path);
        t.deepEqual(adapter.deriveAddress(adapter.parseAccountKey(key.canonical, network), expected.index), derived, 'the canonical form derives the same');
      }
      if (chain.keysEncodeNetwork) {
        const other: NetworkKind = network === 'mainnet' ? 'testnet' : 'mainnet';
        t.is(
          codeOf(() => adapter.parseAccountKey(vectors.key, other)),
          'wallet_kind_mismatch',
        );
      }
      t.is(
        codeOf(() => adapter.parseAccountKey('not a key', network)),
        'invalid_xpub_format',
      );
      t.is(
        codeOf(() => adapter.deriveAddress(key, -1)),
        'validation_error',
      );
    });

    test(`${id} conformance: ${network} address validation`, (t) => {
      for (const { address } of vectors.addresses) t.true(adapter.isValidAddress(address, network), address);
      for (const address of chain.invalidAddresses[network]) t.false(adapter.isValidAddress(address, network), address);
      for (const garbage of ['', ' ', 'x'.repeat(10_000), '\u0000']) t.notThrows(() => t.false(adapter.isValidAddress(garbage, network)));
    });

    if (!(chain.proofNetworks ?? KINDS).includes(network)) continue;
    test(`${id} conformance: ${network} ownership proof signed by the chain's own library`, async (t) => {
      const key = adapter.parseAccountKey(chain.proofKeys?.[network] ?? vectors.key, network);
      const message = `gateway ownership challenge ${id} ${network} 0123456789abcdef`;
      const signature = await chain.sign(message, network);
      t.true(await adapter.verifyOwnership({ key, message, signature }));
      t.false(await adapter.verifyOwnership({ key, message: `${message}!`, signature }), 'a signature of another message');
      const error = await t.throwsAsync(adapter.verifyOwnership({ key, message, signature: '%%% not a signature %%%' }));
      t.true(isAppError(error) && error.code === 'validation_error', String(error));
    });

    test(`${id} conformance: ${network} address signature made the way the chain's wallets sign`, async (t) => {
      const key = adapter.parseAccountKey(chain.proofKeys?.[network] ?? vectors.key, network);
      const address = adapter.deriveAddress(key, 0).address;
      // A chain with payment references derives nothing beyond index 0; a reference is an address of a key nobody holds.
      const other = usesPaymentReferences(definition) ? adapter.newPaymentReference!() : adapter.deriveAddress(key, 1).address;
      const message = `Refund 01J9ZK3Q8T of invoice ${id}-${network}: pay to ${address}`;
      const signature = await (chain.signForAddress ?? chain.sign)(message, network);
      t.true(await adapter.verifyAddressSignature({ address, network, message, signature }));
      t.false(await adapter.verifyAddressSignature({ address, network, message: `${message}!`, signature }), 'a signature of another message');
      t.false(await adapter.verifyAddressSignature({ address: other, network, message, signature }), 'another address');
      for (const garbage of ['%%% not a signature %%%', '']) {
        const error = await t.throwsAsync(adapter.verifyAddressSignature({ address, network, message, signature: garbage }));
        t.true(isAppError(error) && error.code === 'validation_error', String(error));
      }
      const unparseable = await t.throwsAsync(adapter.verifyAddressSignature({ address: 'not an address', network, message, signature }));
      t.true(isAppError(unparseable) && unparseable.code === 'validation_error', String(unparseable));
    });
  }

  test(`${id} conformance: units of every coin round-trip exactly`, (t) => {
    for (const coin of definition.coins) {
      const one = 10n ** BigInt(coin.decimals);
      t.is(toBaseUnits('1', coin.decimals), one, coin.id);
      t.is(fromBaseUnits(one + 1n, coin.decimals), coin.decimals === 0 ? '1' : `1.${'0'.repeat(coin.decimals - 1)}1`, coin.id);
      const smallest = coin.decimals === 0 ? '1' : `0.${'0'.repeat(coin.decimals - 1)}1`;
      t.is(toBaseUnits(smallest, coin.decimals), 1n, coin.id);
      t.throws(() => toBaseUnits(`${smallest}1`, coin.decimals), undefined, `${coin.id}: more digits than decimals`);
    }
  });

  test(`${id} conformance: payment URIs`, (t) => {
    t.true(chain.paymentUris.length > 0);
    for (const { input, uri } of chain.paymentUris) t.is(adapter.paymentUri(input), uri, input.coin);
    const [first] = chain.paymentUris;
    t.is(
      codeOf(() => adapter.paymentUri({ ...first!.input, coin: 'no_such_coin' })),
      'invalid_coin',
    );
    t.is(
      codeOf(() => adapter.paymentUri({ ...first!.input, amountUnits: -1n })),
      'validation_error',
    );
  });

  if (usesPaymentReferences(definition)) {
    // Issue 43: one recipient, a fresh reference per invoice.
    test(`${id} conformance: the wallet key is the one recipient address, and nothing derives beyond it`, (t) => {
      t.is(definition.maxAddressIndex, 0);
      for (const network of KINDS) {
        const key = adapter.parseAccountKey(chain.vectors[network].key, network);
        const recipient = adapter.deriveAddress(key, 0);
        t.true(adapter.isValidAddress(recipient.address, network), network);
        t.is(adapter.parseAccountKey(recipient.address, network).canonical, key.canonical, `${network}: the recipient address is the key`);
        t.is(
          codeOf(() => adapter.deriveAddress(key, 1)),
          'validation_error',
        );
      }
    });

    test(`${id} conformance: payment references are fresh, valid addresses, and the payment URI carries them`, (t) => {
      const references = Array.from({ length: 100 }, () => adapter.newPaymentReference!());
      t.is(new Set(references).size, references.length, 'no reference twice');
      for (const reference of references.slice(0, 10)) {
        for (const network of KINDS) t.true(adapter.isValidAddress(reference, network), `${network}: ${reference}`);
      }
      const withReference = chain.paymentUris.filter(({ input }) => input.reference !== undefined);
      t.true(withReference.length > 0, 'a payment URI vector with a reference');
      for (const { input, uri } of withReference) t.true(uri.includes(input.reference!), uri);
      const [first] = chain.paymentUris;
      const fresh = adapter.newPaymentReference!();
      t.true(adapter.paymentUri({ ...first!.input, reference: fresh }).includes(fresh));
    });
  }

  if (typeof adapter.createAccountTreasury === 'function') {
    // Issue 37: every account treasury builds payouts, and refuses a payout of the wrong shape before it reads the chain.
    test(`${id} conformance: the account treasury builds payouts and refuses a bad request before reading the chain`, async (t) => {
      const network = definition.networks.testnets[0]!;
      const providers = new ProviderPool({ chain: id, network: network.id, endpoints: [{ name: 'unreachable', url: 'http://127.0.0.1:9' }], timeoutMs: 1_000 });
      const treasury = adapter.createAccountTreasury!({ network, providers });
      t.is(typeof treasury.buildPayout, 'function');
      const key = adapter.parseAccountKey(chain.vectors.testnet.key, 'testnet');
      const source = { address: adapter.deriveAddress(key, 0).address, key, index: 0 };
      const payout = (recipients: { address: string; units: bigint }[]) =>
        treasury.buildPayout!({
          coin: treasury.nativeCoin,
          from: { kind: 'deposit', source },
          recipients: recipients.map((r, i) => ({ reference: `r${i}`, ...r })),
          operatorAccounts: {},
        });
      const codeOfAsync = async (p: Promise<unknown>) => {
        const error = await t.throwsAsync(p);
        return isAppError(error) ? error.code : String(error);
      };
      t.is(await codeOfAsync(payout([])), 'validation_error');
      t.is(await codeOfAsync(payout([{ address: source.address, units: 0n }])), 'validation_error');
      for (const address of chain.invalidAddresses.testnet.slice(0, 3))
        t.is(await codeOfAsync(payout([{ address, units: 1n }])), 'treasury_wrong_network', address);
      const operator = await codeOfAsync(
        treasury.buildPayout!({
          coin: treasury.nativeCoin,
          from: { kind: 'operator' } as never,
          recipients: [{ reference: 'r', address: source.address, units: 1n }],
          operatorAccounts: {},
        }),
      );
      t.is(operator, 'treasury_operator_account_missing');
    });
  }

  if (definition.capabilities.sandboxKeyGeneration) {
    test(`${id} conformance: generated sandbox keys parse and derive`, (t) => {
      for (const network of KINDS) {
        const key = adapter.parseAccountKey(adapter.generateAccountKey!(network), network);
        t.true(adapter.isValidAddress(adapter.deriveAddress(key, 0).address, network), network);
      }
    });
  }
}

/** The AppError code `fn` throws (a message naming any other throw), or undefined when it does not throw. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isAppError(error) ? error.code : `not an AppError: ${String(error)}`;
  }
  return undefined;
}
