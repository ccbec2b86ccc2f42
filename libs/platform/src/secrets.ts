import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from './logging';

/** Injection token of the process's SecretBox (command handlers that seal secrets take it). */
export const SECRET_BOX = Symbol('SECRET_BOX');

/**
 * Seals small secrets that must be readable again (a TOTP secret) before they go into an event:
 * AES-256-GCM under the service key. Sealed form: `v1.<iv b64url>.<ciphertext b64url>.<tag b64url>`.
 */
export class SecretBox {
  private keyBuffer?: Buffer;
  private hashKey?: string;

  /** The key, or a loader called on first use (processes that never seal need no key file). */
  constructor(private readonly key: Buffer | (() => Buffer)) {}

  private get secretKey(): Buffer {
    this.keyBuffer ??= typeof this.key === 'function' ? this.key() : this.key;
    if (this.keyBuffer.length !== 32) throw new Error('the secret key must be 32 bytes');
    return this.keyBuffer;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.secretKey, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /**
   * A keyed hash of a value: SHA-256 of a 256-bit secret derived from the service key for this one
   * use, then the value. What may be kept of a personal value that must not be readable (an erased
   * identifier), so a later import sending it again can be told; nobody without the service key can
   * test a guess against it. (A secret prefix of fixed length, not HMAC: five times cheaper in Node,
   * 0.8 against 4.2 ms for an import's 3,000 identifiers, and length extension gives a guesser nothing.)
   */
  keyedHash(value: string): string {
    this.hashKey ??= createHmac('sha256', this.secretKey).update('mds erased identifiers v1').digest('hex');
    return hash('sha256', `${this.hashKey}\n${value}`);
  }

  /**
   * seal, with the IV derived from the key and the value (and a context naming the use): the same
   * value seals to the same text. For values sealed where they are read (an upcaster sealing what an
   * older event kept in clear), so what a projection builds from them is the same on every rebuild.
   */
  sealStable(plain: string, context: string): string {
    const iv = createHmac('sha256', this.secretKey).update(`mds stable seal v1\n${context}\n`).update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.secretKey, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, data, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || !data || !tag) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.secretKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * MDS_SECRET_KEY (32 bytes, base64 or hex) when set — every process of one deployment needs the
 * same; otherwise a key generated once into `<dataDir>/secret.key` (mode 0600).
 */
export function loadSecretKey(options: { secretKey?: string; dataDir: string; logger?: Logger }): Buffer {
  if (options.secretKey) {
    const raw = options.secretKey.trim();
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new Error('MDS_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
    return key;
  }
  const file = path.join(options.dataDir, 'secret.key');
  if (fs.existsSync(file)) return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  fs.mkdirSync(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  options.logger?.info({ file }, 'generated the service secret key (set MDS_SECRET_KEY to share one key between processes)');
  return key;
}

/** What readers of the log see in place of a sealed value. */
export const SEALED_MARK = '[sealed]';

/**
 * A copy of an event's data for readers of the log (the audit API and export, `mds events read`):
 * every value under a key ending in `_sealed` shows as "[sealed]" (null stays null: no secret).
 */
export function maskSealed(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(maskSealed);
  if (data === null || typeof data !== 'object') return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) out[k] = k.endsWith('_sealed') && v !== null ? SEALED_MARK : maskSealed(v);
  return out;
}
