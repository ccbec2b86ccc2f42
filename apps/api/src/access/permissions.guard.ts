import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { permissionsOf } from '#mds/access';
import { forbidden, unauthorized } from '#mds/platform';
import { ACCESS_RULE, PASSWORD_LOGIN, type AccessRule } from './permissions';

/** Role check per endpoint, after the authentication hook has found the caller. */
@Injectable()
export class PermissionsGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, targets);
    if (rule === 'public') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.passwordLogin) {
      if (this.reflector.getAllAndOverride<boolean>(PASSWORD_LOGIN, targets)) return true;
      throw unauthorized('Username and password are accepted only to create an access token');
    }
    const principal = request.principal;
    if (!principal) throw unauthorized();
    if (!rule) throw forbidden('This endpoint has no access rule');
    if (rule === 'authenticated') return true;
    if (!permissionsOf(principal.roles, principal.kind === 'integration').has(rule)) {
      throw forbidden(`This endpoint needs the ${rule} permission, which ${principal.kind === 'integration' ? 'this integration token' : 'your roles'} do not grant`);
    }
    return true;
  }
}
