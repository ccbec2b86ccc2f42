import { SetMetadata } from '@nestjs/common';
import type { Permission, Principal } from '#mds/access';

export const ACCESS_RULE = 'mds:access-rule';

/** `authenticated`: any valid token; `public`: no credentials at all. */
export type AccessRule = Permission | 'authenticated' | 'public';

/** Every route declares who may call it; a route without a rule is refused (see PermissionsGuard). */
export const RequirePermission = (rule: AccessRule) => SetMetadata(ACCESS_RULE, rule);
export const Public = () => SetMetadata(ACCESS_RULE, 'public');

export const PASSWORD_LOGIN = 'mds:password-login';
/** The one route that also takes username + password basic authentication. */
export const AllowPasswordLogin = () => SetMetadata(PASSWORD_LOGIN, true);

export interface PasswordLogin {
  username: string;
  password: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    passwordLogin?: PasswordLogin;
    /** The token's last recorded use, as authentication found it (null: never). */
    tokenLastUsedAt?: string | null;
  }
}
