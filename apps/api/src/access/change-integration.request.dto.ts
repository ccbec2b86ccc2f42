import { IsBoolean } from 'class-validator';

/** `PATCH /api/integrations/{id}/` `{enabled}`: false disables the integration and revokes its tokens. */
export class ChangeIntegrationRequest {
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled!: boolean;
}
