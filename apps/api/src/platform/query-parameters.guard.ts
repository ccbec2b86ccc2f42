import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '#mds/platform';

/** Where @nestjs/swagger keeps an operation's @ApiQuery parameters. */
const API_PARAMETERS = 'swagger/apiParameters';

/**
 * Unknown query parameters are a 400 naming them and listing the accepted ones, never silently
 * ignored (a typo would otherwise answer with everything). A handler that reads its query (`@Query()`)
 * checks it itself: a DTO refuses unknown keys, a data list its unknown filters. Any other handler
 * accepts the parameters its OpenAPI operation declares (`@ApiQuery`) and `access-token`.
 */
@Injectable()
export class QueryParametersGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
    if (Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.QUERY}:`))) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const given = Object.keys((request.query ?? {}) as Record<string, unknown>);
    if (given.length === 0) return true;
    const declared = ((Reflect.getMetadata(API_PARAMETERS, handler) ?? []) as Array<{ in?: string; name?: string }>)
      .filter((p) => p.in === 'query' && p.name)
      .map((p) => p.name!);
    const accepted = [...declared, 'access-token'];
    const unknown = given.filter((key) => !accepted.includes(key));
    if (unknown.length > 0) throw unknownParameters(unknown, accepted);
    return true;
  }
}

/** The 400 for query parameters an endpoint does not take: names them (at most five) and lists the accepted ones. */
export function unknownParameters(unknown: string[], accepted: readonly string[]) {
  const named = unknown.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 50))).join(', ');
  const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
  return invalidRequest(`Unknown query parameter${unknown.length > 1 ? 's' : ''} ${named}${more}; accepted: ${accepted.join(', ')}`);
}
