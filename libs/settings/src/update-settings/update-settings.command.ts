import type { Settings } from '../settings';

/** `PATCH /api/settings/`: the settings sent, each already valid (the request DTO checks them); only these change. */
export class UpdateSettingsCommand {
  constructor(
    readonly changes: Partial<Settings>,
    readonly actor: string,
    readonly requestId?: string,
    readonly tokenId?: string,
  ) {}
}
