import { Transform, Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsEmpty, IsIn, IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { BodyOptional, Satisfies, WhenSent } from '../platform/request-validation';

const METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

const isHeaderMap = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length <= 50 &&
  Object.entries(value).every(([name, v]) => HEADER_NAME.test(name) && typeof v === 'string' && !/[\r\n]/.test(v) && v.length <= 4096);

/** Seconds, as a number or the spec's string form ("0"). */
const isInterval = (value: unknown) => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 86_400;
};

/** A Standard Webhooks secret (`whsec_<base64>` or plain); null or "" for none. */
const isSecret = (value: unknown) => value === '' || (typeof value === 'string' && value.length >= 16 && value.length <= 256);

/** `request` of an outlet: what it sends where. Whether the URL may be used and which headers the service sets are the context's rules. */
export class WebhookRequestBody {
  @WhenSent()
  @IsString({ message: 'request.url must be an http(s) URL of at most 2048 characters' })
  @MaxLength(2048, { message: 'request.url must be an http(s) URL of at most 2048 characters' })
  url?: string;

  @WhenSent()
  @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(METHODS, { message: `request.method must be one of ${METHODS.join(', ')}` })
  method?: string;

  @WhenSent()
  @Satisfies(isHeaderMap, () => 'request.headers must be {name: value}: at most 50 header names, each with a single-line string value of at most 4096 characters')
  headers?: Record<string, string>;

  @WhenSent()
  @IsIn(['json'], { message: 'request.format must be "json"' })
  format?: 'json';

  /** Any JSON: the template `{(data)}` is replaced in. */
  @Allow()
  content?: unknown;

  @WhenSent()
  @IsBoolean({ message: 'request.is_batched must be true or false' })
  is_batched?: boolean;

  /** Header names whose values are credentials besides those named so (Authorization, X-Api-Key, …): sealed and masked like them. */
  @WhenSent()
  @IsArray({ message: 'request.secret_headers must be a list of header names' })
  @IsString({ each: true, message: 'request.secret_headers must be a list of header names' })
  @ArrayMaxSize(50, { message: 'request.secret_headers must be a list of at most 50 header names' })
  secret_headers?: string[];
}

/** What creating and changing an outlet share. */
class OutletFields {
  @WhenSent()
  @IsBoolean({ message: 'is_batched must be true or false' })
  is_batched?: boolean;

  @WhenSent()
  @IsInt({ message: 'max_batch_size must be a whole number from 1 to 1000' })
  @Min(1, { message: 'max_batch_size must be a whole number from 1 to 1000' })
  @Max(1000, { message: 'max_batch_size must be a whole number from 1 to 1000' })
  max_batch_size?: number;

  @WhenSent()
  @Satisfies(isInterval, () => 'min_request_interval must be a number of seconds from 0 to 86400')
  min_request_interval?: number | string;

  @IsOptional()
  @Satisfies(isSecret, () => 'secret must be a string of 16 to 256 characters (whsec_<base64> or plain)')
  secret?: string | null;

  @WhenSent()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;
}

/** `POST …/outlets/`: `{outlet_type: "webhook", request: {url, method, headers, format, content, is_batched}, …}`. */
export class CreateOutletRequest extends OutletFields {
  @WhenSent()
  @IsIn(['webhook'], { message: 'outlet_type must be "webhook"' })
  outlet_type?: 'webhook';

  @IsObject({ message: 'request must be an object {url, method, headers, format, content, is_batched}' })
  @ValidateNested()
  @Type(() => WebhookRequestBody)
  request!: WebhookRequestBody;

  /** `beginning` (default): from message 1; `now`: from the first message posted after the outlet is created. */
  @WhenSent()
  @IsIn(['now', 'beginning'], { message: 'start must be "now" or "beginning"' })
  start?: 'now' | 'beginning';
}

/** `PATCH …/outlets/{id}/`: request fields, batching, interval, secret; `enabled` pauses or resumes. */
export class ChangeOutletRequest extends OutletFields {
  @WhenSent()
  @IsObject({ message: 'request must be an object {url, method, headers, format, content, is_batched}' })
  @ValidateNested()
  @Type(() => WebhookRequestBody)
  request?: WebhookRequestBody;
}

/** `POST …/outlets/{id}/rewind/` `{to_message_number: N}` (the other controls take no body). */
@BodyOptional()
export class ControlOutletRequest {
  @WhenSent()
  @IsInt({ message: 'rewind needs {"to_message_number": N} with N ≥ 1' })
  @Min(1, { message: 'rewind needs {"to_message_number": N} with N ≥ 1' })
  to_message_number?: number;
}

/** `POST …/outlets/{id}/test/`: no fields (no body, or `{}`). */
@BodyOptional()
export class TestOutletRequest {
  // class-validator refuses a class it has no rule for (forbidUnknownValues): this rule makes `{}` one it knows.
  @IsEmpty({ message: 'a test send takes no fields' })
  readonly none?: undefined;
}
