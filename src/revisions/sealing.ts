/**
 * Secrets in stored revisions are sealed with AES-256-GCM (node:crypto) under a key the operator
 * gives in SHELFWATCH_CONFIG_KEY (32 random bytes, base64 or hex: `openssl rand -base64 32`).
 * A sealed value is text, so a document keeps its shape: `sealed:v1:<key id>:<base64url of iv, tag,
 * ciphertext>`. The key id (8 hex of the key's SHA-256) lets a wrong key be named as such instead
 * of failing as "corrupt".
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The environment variable holding the key. */
export const CONFIG_KEY_VARIABLE = 'SHELFWATCH_CONFIG_KEY';
/** How a secret is shown anywhere outside the process that uses it. */
export const SECRET_SHOWN = '[secret]';

const PREFIX = 'sealed:v1:';

export interface SealingKey {
  readonly id: string;
  readonly bytes: Buffer;
}

export class SealingKeyError extends Error {
  override readonly name = 'SealingKeyError';
}

/** The key from the environment; undefined when the variable is not set; a typed error when it is unusable. */
export function sealingKeyFrom(env: Readonly<Record<string, string | undefined>>): SealingKey | undefined {
  const text = env[CONFIG_KEY_VARIABLE]?.trim();
  if (text === undefined || text === '') return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(text) && !/^[A-Za-z0-9+/_-]+=*$/.test(text))) {
    throw new SealingKeyError(
      `expected ${CONFIG_KEY_VARIABLE} to be 32 bytes in base64 or hex (openssl rand -base64 32), got ${bytes.length} bytes`,
    );
  }
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), bytes };
}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function seal(plain: string, key: SealingKey): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${PREFIX}${key.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The plain text of a sealed value, or why it cannot be opened here (no key, another key, damaged). */
export function unseal(
  token: string,
  key: SealingKey | undefined,
): { ok: true; plain: string } | { ok: false; reason: string } {
  const [id, packed] = token.slice(PREFIX.length).split(':');
  if (key === undefined)
    return {
      ok: false,
      reason: `a sealed secret needs ${CONFIG_KEY_VARIABLE} to be read, and it is not set`,
    };
  if (id !== key.id)
    return {
      ok: false,
      reason: `a secret sealed with key ${id}, but ${CONFIG_KEY_VARIABLE} is key ${key.id}`,
    };
  try {
    const raw = Buffer.from(packed ?? '', 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return { ok: true, plain };
  } catch {
    return { ok: false, reason: 'a sealed secret that does not open with this key (damaged)' };
  }
}
