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

export function createSecretBox(masterKeyHex: string): SecretBox {
  const raw = Buffer.from(masterKeyHex, 'hex');
  if (raw.length !== 32) throw new Error('master key must be 32 bytes (64 hex characters)');
  // One KeyObject for every call: the signed-request check opens secrets on every lookup.
  const key = createSecretKey(raw);
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed, aad) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised ciphertext format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
