import { Body, Controller, Get, Inject, Patch, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { SETTINGS_READ_MODEL, type SettingsReadModel } from '#mds/projections';
import { UpdateSettingsCommand, type Settings } from '#mds/settings';
import { RequirePermission } from '../access/permissions';
import { sentFields } from '../platform/request-validation';
import { UpdateSettingsRequest } from './update-settings.request.dto';

const SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    timezone: { type: 'string', example: 'Europe/Amsterdam' },
    default_country: { type: 'string', nullable: true, example: 'NL' },
    default_currency: { type: 'string', example: 'EUR' },
    company_prefixes: { type: 'array', items: { type: 'string' } },
    custom_event_types: { type: 'array', items: { type: 'string' } },
    personal_company_fields: { type: 'array', items: { type: 'string' }, description: '<COMPANY>__<field> keys whose values are personal: kept apart from the log, forgotten with the customer' },
  },
};

@ApiTags('settings')
@Controller('api/settings')
export class SettingsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SETTINGS_READ_MODEL) private readonly settings: SettingsReadModel,
  ) {}

  @Get()
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'The service settings: timezone (IANA, default UTC), default_country, default_currency, company_prefixes, custom_event_types, personal_company_fields' })
  @ApiOkResponse({ schema: { type: 'object', properties: { settings: SETTINGS_SCHEMA } } })
  async get(): Promise<{ settings: Settings }> {
    return { settings: await this.settings.current() };
  }

  @Patch()
  @RequirePermission('settings:manage')
  @ApiOperation({ summary: 'Change settings (admin). Only the keys sent change; unknown keys and invalid values are 400.' })
  @ApiBody({ schema: SETTINGS_SCHEMA })
  @ApiOkResponse({ schema: { type: 'object', properties: { settings: SETTINGS_SCHEMA } } })
  async patch(@Req() request: FastifyRequest, @Body() body: UpdateSettingsRequest): Promise<{ settings: Settings }> {
    const settings = await this.commands.execute<UpdateSettingsCommand, Settings>(new UpdateSettingsCommand(sentFields(body), request.principal!.ownerId, request.id, request.principal!.tokenId));
    await this.settings.changed();
    return { settings };
  }
}
