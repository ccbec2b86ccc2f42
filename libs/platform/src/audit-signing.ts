import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalJson } from './canonical-json';
import type { Logger } from './logging';

/** PKCS#8 DER of an Ed25519 private key, less its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The key that signs the audit trail's checkpoints and export heads (Ed25519). Its public half is
 * served at GET /api/audit/public-key/ and checked by `mds audit verify --public-key`: a rewritten
 * chain or a cut export cannot carry a valid signature without the private half.
 */
export class AuditSigner {
  readonly keyId: string;
  readonly publicKeyPem: string;

  constructor(private readonly privateKey: KeyObject) {
    const publicKey = createPublicKey(privateKey);
    this.publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    this.keyId = keyIdOf(publicKey);
  }

  /** Ed25519 signature (base64url) over the canonical JSON of `value`. */
  sign(value: unknown): string {
    return sign(null, Buffer.from(canonicalJson(value)), this.privateKey).toString('base64url');
  }
}

/** The key id: the first 16 hex digits of the SHA-256 of the public key (SPKI DER). */
export const keyIdOf = (publicKey: KeyObject): string => createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);

/** Reads a public key given as PEM (what GET /api/audit/public-key/ serves). */
export function readPublicKey(pem: string): { key: KeyObject; keyId: string } {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the public key is not an Ed25519 key');
  return { key, keyId: keyIdOf(key) };
}

/** Whether `signature` is the key's signature over the canonical JSON of `value`. */
export function verifySigned(publicKey: KeyObject, value: unknown, signature: unknown): boolean {
  if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(signature)) return false;
  const bytes = Buffer.from(signature, 'base64url');
  // Base64's last character carries spare bits: another text for the same bytes is not the signature written.
  if (bytes.toString('base64url') !== signature) return false;
  return verify(null, Buffer.from(canonicalJson(value)), publicKey, bytes);
}

/**
 * MDS_AUDIT_SIGNING_KEY (an Ed25519 private key as PKCS#8 PEM, or its 32-byte seed in base64 or hex)
 * when set — every process of a deployment signs with the same; otherwise a key generated once into
 * `<dataDir>/audit-signing.pem` (mode 0600).
 */
export function loadAuditSigner(options: { signingKey?: string; dataDir: string; logger?: Logger }): AuditSigner {
  if (options.signingKey) return new AuditSigner(privateKeyFrom(options.signingKey.trim()));
  const file = path.join(options.dataDir, 'audit-signing.pem');
  if (fs.existsSync(file)) return new AuditSigner(createPrivateKey(fs.readFileSync(file, 'utf8')));
  fs.mkdirSync(options.dataDir, { recursive: true });
  const { privateKey } = generateKeyPairSync('ed25519');
  fs.writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  const signer = new AuditSigner(privateKey);
  options.logger?.info({ file, keyId: signer.keyId }, 'generated the audit signing key (set MDS_AUDIT_SIGNING_KEY to share one key between processes)');
  return signer;
}

function privateKeyFrom(text: string): KeyObject {
  if (text.includes('-----BEGIN')) {
    const key = createPrivateKey(text);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('MDS_AUDIT_SIGNING_KEY must be an Ed25519 private key');
    return key;
  }
  const seed = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (seed.length !== 32) throw new Error('MDS_AUDIT_SIGNING_KEY must be an Ed25519 private key as PKCS#8 PEM, or its 32-byte seed in base64 or hex');
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}
