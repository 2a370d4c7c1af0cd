import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM encryption at rest; output is `v1.<iv>.<ciphertext>.<tag>` in base64url. */
export function seal(key: Uint8Array, plaintext: string, associatedData = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, ct, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** Reverses seal; throws if the key, the associated data or the ciphertext do not match. */
export function open(key: Uint8Array, sealed: string, associatedData = ''): string {
  const [version, iv, ct, tag] = sealed.split('.');
  if (version !== 'v1' || !iv || !ct || !tag) throw new Error('sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
