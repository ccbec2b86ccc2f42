import type { AuditSigner } from '#mds/platform';
import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { auditEvents } from './audit.queries';

export const AUDIT_READ_MODEL = Symbol('AuditReadModel');

/** The log as auditors read it, and the public half of the key that signs its exports. */
export class AuditReadModel {
  constructor(private readonly read: ReadDeps & { auditSigner(): AuditSigner }) {}

  events(options: Parameters<typeof auditEvents>[1]) {
    return readFrom(this.read, { log: true }, ({ store }) => auditEvents({ ...this.read, store }, options));
  }

  publicKey(): { keyId: string; pem: string } {
    const signer = this.read.auditSigner();
    return { keyId: signer.keyId, pem: signer.publicKeyPem };
  }
}
