import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest with AES-256-GCM under the master key. Ciphertexts look like
 * `v1.<iv>.<tag>.<data>` (base64url parts); `aad` binds a ciphertext to its row (e.g. the key id) so
 * a ciphertext copied to another row fails to decrypt.
 */
export interface SecretBox {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createSecretBox(masterKeyHex: string): SecretBox {
  const raw = Buffer.from(masterKeyHex, 'hex');
  if (raw.length !== 32) throw new Error('master key must be 32 bytes (64 hex characters)');
  // One KeyObject for every call: the signed-request check opens secrets on every lookup.
  const key = createSecretKey(raw);
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed, aad) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised ciphertext format');
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      // A shorter GCM tag is accepted by OpenSSL unless the length is pinned, and a truncated tag
      // makes forging a ciphertext far cheaper: insist on the full 16 bytes.
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('unrecognised ciphertext format');
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
