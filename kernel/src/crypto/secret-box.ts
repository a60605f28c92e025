import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest with AES-256-GCM under the master key. Ciphertexts look like
 * `v1.<iv>.<tag>.<data>` (base64url parts); `aad` binds a ciphertext to its row (e.g. the key id) so
 * a ciphertext copied to another row fails to decrypt.
 */
export interface SecretBox {
  /** Seals under the current master key. */
  seal(plaintext: string, aad: string): string;
  /** Opens a ciphertext sealed under the current key or one of the previous keys (key rotation). */
  open(sealed: string, aad: string): string;
  /**
   * The ciphertext sealed under the current key when `sealed` opens only under a previous key;
   * undefined when it is already under the current key. Throws when no key opens it.
   */
  reseal(sealed: string, aad: string): string | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * `previousKeysHex`: master keys being rotated out (`security.previousMasterKeys`). Opening tries
 * the current key first, then these in order; sealing always uses the current key.
 */
export function createSecretBox(masterKeyHex: string, previousKeysHex: readonly string[] = []): SecretBox {
  const keyOf = (hex: string) => {
    const raw = Buffer.from(hex, 'hex');
    if (raw.length !== 32) throw new Error('master key must be 32 bytes (64 hex characters)');
    // One KeyObject for every call: the signed-request check opens secrets on every lookup.
    return createSecretKey(raw);
  };
  const key = keyOf(masterKeyHex);
  const previous = previousKeysHex.filter((hex) => hex.toLowerCase() !== masterKeyHex.toLowerCase()).map(keyOf);
  const openWith = (k: ReturnType<typeof createSecretKey>, sealed: string, aad: string): string => {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised ciphertext format');
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    // A shorter GCM tag is accepted by OpenSSL unless the length is pinned, and a truncated tag
    // makes forging a ciphertext far cheaper: insist on the full 16 bytes.
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('unrecognised ciphertext format');
    const decipher = createDecipheriv('aes-256-gcm', k, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  };
  /** The plaintext and whether the current key opened it. */
  const openAny = (sealed: string, aad: string): { plaintext: string; current: boolean } => {
    try {
      return { plaintext: openWith(key, sealed, aad), current: true };
    } catch (error) {
      for (const k of previous) {
        try {
          return { plaintext: openWith(k, sealed, aad), current: false };
        } catch {
          // the next previous key
        }
      }
      throw error;
    }
  };
  const box: SecretBox = {
    seal(plaintext, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed, aad) {
      return openAny(sealed, aad).plaintext;
    },
    reseal(sealed, aad) {
      const { plaintext, current } = openAny(sealed, aad);
      return current ? undefined : box.seal(plaintext, aad);
    },
  };
  return box;
}
