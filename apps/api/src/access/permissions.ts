import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Permission, Principal } from '#mds/access';

export const ACCESS_RULE = 'mds:access-rule';
/** The rule as the OpenAPI document carries it: the document's security is made from it (openapi-contract.ts). */
export const ACCESS_RULE_EXTENSION = 'x-mds-permission';

/** `authenticated`: any valid token; `public`: no credentials at all. */
export type AccessRule = Permission | 'authenticated' | 'public';

/** Every route declares who may call it; a route without a rule is refused (see PermissionsGuard). */
export const RequirePermission = (rule: AccessRule) => applyDecorators(SetMetadata(ACCESS_RULE, rule), ApiExtension(ACCESS_RULE_EXTENSION, rule));
export const Public = () => RequirePermission('public');

export const PASSWORD_LOGIN = 'mds:password-login';
export const PASSWORD_LOGIN_EXTENSION = 'x-mds-password-login';
/** The one route that also takes username + password basic authentication. */
export const AllowPasswordLogin = () => applyDecorators(SetMetadata(PASSWORD_LOGIN, true), ApiExtension(PASSWORD_LOGIN_EXTENSION, true));

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
