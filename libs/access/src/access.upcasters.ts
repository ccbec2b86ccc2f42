import type { Upcaster } from '#mds/event-store';
import type { SecretBox } from '#mds/platform';
import { USER_CREATED, USER_CREATED_SCHEMA } from './access.events';

/**
 * UserCreated of schema 1 kept the scrypt hash in clear: sealed as it is read, so the log's older
 * users log in as before and no reader of the log sees a hash (their bytes in the log stay: the log
 * is never rewritten).
 */
export const accessUpcasters = (secrets: SecretBox): Upcaster[] => [
  {
    type: USER_CREATED,
    fromVersion: 1,
    toVersion: USER_CREATED_SCHEMA,
    upcast(data) {
      const { password_hash: hash, ...rest } = data as { password_hash?: string };
      return typeof hash === 'string' ? { ...rest, password_hash_sealed: secrets.sealStable(hash, USER_CREATED) } : data;
    },
  },
];
