import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { getMetadataStorage, IsInt, IsOptional, Max, Min, ValidateBy, ValidateIf, type ValidationError, type ValidationOptions } from 'class-validator';
import { invalidRequest } from '#mds/platform';

const UNKNOWN_KEYS = Symbol('mds:unknown-keys');
const BODY_OPTIONAL = Symbol('mds:body-optional');

/**
 * How a request DTO names a key it does not know (default: `Unknown key "x"; allowed: a, b`), e.g.
 * `Unknown setting "colour"` for the settings.
 */
export function UnknownKeys(message: (key: string, allowed: string[]) => string): ClassDecorator {
  return (target) => Reflect.defineMetadata(UNKNOWN_KEYS, message, target);
}

/**
 * A request DTO whose route may be sent without a body (read as `{}`). Every other `@Body()` refuses
 * an empty one: a client that meant to send something has sent nothing, which must not pass as "zero
 * records" or as a request with no fields.
 */
export function BodyOptional(): ClassDecorator {
  return (target) => Reflect.defineMetadata(BODY_OPTIONAL, true, target);
}

/** Validated only when sent: unlike @IsOptional, `null` is checked (and refused) rather than skipped. */
export const WhenSent = () => ValidateIf((_object, value) => value !== undefined);

/** A rule of a context (a time zone, a country code …) as a class-validator constraint with our message. */
export function Satisfies(rule: (value: unknown) => boolean, message: (value: unknown) => string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'satisfies', validator: { validate: (value) => rule(value), defaultMessage: (args) => message(args?.value) } }, options);
}

/**
 * A query parameter that is a whole number from `min` to `max` (absent or empty: the route's default);
 * `message` says what it is for when it is not.
 */
export function WholeNumber(name: string, min: number, max: number, message = `${name} must be a whole number from ${min} to ${max}`): PropertyDecorator {
  const decorators = [
    IsOptional(),
    Transform(({ value }) => (value === undefined || value === '' ? undefined : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value)),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  ];
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** A date or a time in ISO 8601 (`2026-03-01`, `2026-03-01T10:00:00Z`, with an offset or none). */
export const isIsoTime = (v: unknown) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?(Z|[+-]\d{2}:?\d{2})?$/.test(v) && !Number.isNaN(Date.parse(v));

function allowedKeys(target: object): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}

/**
 * The first problem of a request, as the error envelope says it: the field's path in the message
 * (`request.url must be …`), unknown keys first (a misspelt key explains the rest).
 */
export function firstProblem(errors: ValidationError[], parents: string[] = []): string {
  const flat: Array<{ path: string[]; error: ValidationError }> = [];
  const walk = (list: ValidationError[], path: string[]) => {
    for (const error of list) {
      flat.push({ path: [...path, error.property], error });
      if (error.children?.length) walk(error.children, [...path, error.property]);
    }
  };
  walk(errors, parents);
  const unknown = flat.find((f) => f.error.constraints?.whitelistValidation);
  if (unknown) {
    const { path, error } = unknown;
    const key = path.join('.');
    const describe = error.target ? (Reflect.getMetadata(UNKNOWN_KEYS, error.target.constructor) as ((k: string, a: string[]) => string) | undefined) : undefined;
    const allowed = error.target ? allowedKeys(error.target) : [];
    return describe ? describe(key.slice(0, 50), allowed) : `Unknown key "${key.slice(0, 50)}"; allowed: ${allowed.join(', ')}`;
  }
  const first = flat.find((f) => f.error.constraints && Object.keys(f.error.constraints).length > 0);
  if (!first) return 'The request is invalid';
  const message = Object.values(first.error.constraints!)[0];
  // Constraint messages name the property; a nested one is named by its whole path.
  const property = first.error.property;
  const path = first.path.join('.');
  return first.path.length > 1 && message.startsWith(`${property} `) ? `${path}${message.slice(property.length)}` : message;
}

/**
 * Nest's ValidationPipe with class-transformer, strict: unknown keys are refused, nothing is
 * converted implicitly (`"true"` is not a boolean), and every failure is a 400 `invalid_request`
 * naming the field. A body that is not a JSON object is refused before the DTO sees it. No body (none,
 * or an empty one with a JSON content type) is refused on every route but those whose DTO is
 * `@BodyOptional()`, where it is `{}`; the untyped bodies (imports, posted messages) need one too.
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      validationError: { target: true, value: true },
      exceptionFactory: (errors) => invalidRequest(firstProblem(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value === undefined) {
      if (!metadata.metatype || !Reflect.getMetadata(BODY_OPTIONAL, metadata.metatype)) throw invalidRequest('The request body is empty; send a JSON body');
    }
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      if (value === undefined || value === null || value === '') value = {};
      if (typeof value !== 'object' || Array.isArray(value)) throw invalidRequest('The body must be a JSON object');
    }
    return super.transform(value, metadata);
  }
}

/** The fields a validated DTO was sent with, as a plain object (class-transformer leaves transformed absent keys as undefined). */
export function sentFields<T extends object>(dto: T): Partial<T> {
  return Object.fromEntries(Object.entries(dto).filter(([, v]) => v !== undefined)) as Partial<T>;
}
