import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

const text = (field: string, max: number) => [
  IsOptional(),
  IsString({ message: `${field} must be a string of at most ${max} characters` }),
  MaxLength(max, { message: `${field} must be a string of at most ${max} characters` }),
];
const Text = (field: string, max: number): PropertyDecorator => (target, key) => text(field, max).forEach((d) => d(target, key));

export class IntegrationParameters {
  @Text('parameters.name', 200)
  name?: string;

  @Text('parameters.description', 2000)
  description?: string;
}

/**
 * `POST /api/integrations/` `{integration_name, parameters: {name, description}}`, or the older
 * plugins' `{name, description}` (read as parameters by the access context, which also requires the name).
 */
export class CreateIntegrationRequest {
  @Text('integration_name', 200)
  integration_name?: string;

  @IsOptional()
  @IsObject({ message: 'parameters must be an object {name, description} (or send the legacy body {name, description})' })
  @ValidateNested()
  @Type(() => IntegrationParameters)
  parameters?: IntegrationParameters;

  @Text('name', 200)
  name?: string;

  @Text('description', 2000)
  description?: string;
}
