import { LIMITS, type FieldTable, type RecordTable } from '#mds/imports';

/** A campaign key: no white space and no comma (`keys` lists them comma-separated). */
export const CAMPAIGN_KEY_PATTERN = `^[^\\s,]{1,${LIMITS.id}}$`;

/**
 * A campaign's fields: the import coerces by these kinds and validates with the schema made from
 * this table (campaign-import.ts); the order is the order fields are checked in.
 */
export const CAMPAIGN_FIELDS: FieldTable = {
  campaign_key: { kind: 'id', pattern: CAMPAIGN_KEY_PATTERN, required: true, description: 'The campaign\'s identity: letters, digits and punctuation, no spaces or commas', example: 'AE-spring-1' },
  kind: { kind: 'text', max: LIMITS.code, description: 'automated-email, email, sms, EXT (no statistics), or another string kept as sent', example: 'automated-email' },
  automated: { kind: 'boolean', description: 'An automated campaign; when not sent, derived from the kind (automated-email and other `automated-…` kinds: true)', example: true },
  name: { kind: 'text', max: LIMITS.shortText, description: 'Name', example: 'Spring welcome series' },
  state: { kind: 'text', max: LIMITS.code, description: 'active and draft (no statistics) in any case become lower case; other states are kept as sent', example: 'active' },
  activated_at: { kind: 'datetime', description: 'Activation: the statistics window is activation to 30 days after (absent: the first `sent` event)', example: '2026-03-01T10:00:00Z' },
  utm_campaign: { kind: 'text', max: LIMITS.shortText, description: 'UTM campaign tag (email campaigns with custom tags)', example: 'spring-2026' },
  campaign_tags: {
    kind: 'objects',
    closed: true,
    description: 'Tags of the campaign',
    example: [{ id: 7, label: 'Seasonal' }],
    members: {
      id: { kind: 'id', required: true, description: 'Tag id', example: 7 },
      label: { kind: 'text', max: LIMITS.shortText, required: true, description: 'Tag label', example: 'Seasonal' },
    },
  },
  folder: {
    kind: 'object',
    closed: true,
    description: 'The folder the campaign is in',
    example: { id: 3, name: 'Automations' },
    members: {
      id: { kind: 'integer', required: true, description: 'Folder id', example: 3 },
      name: { kind: 'text', max: LIMITS.shortText, description: 'Folder name', example: 'Automations' },
    },
  },
  permissions: {
    kind: 'object',
    closed: true,
    description: 'The marketing permission the campaign needs',
    example: { marketing_permission: 'can_email' },
    members: {
      marketing_permission: { kind: 'text', max: LIMITS.code, description: 'can_email, can_sms …', example: 'can_email' },
    },
  },
  product_ids: { kind: 'list', description: 'The campaign\'s own products (external_ids): the statistics split sales into these and others', example: ['SKU-4411', 'SKU-4412'] },
};

export const CAMPAIGN_RECORD: RecordTable = {
  name: 'CampaignRecord',
  description: 'A campaign to create or patch by campaign_key: a key imported again is patched, `""` removes a field. Other keys are kept and shown.',
  fields: CAMPAIGN_FIELDS,
  keepsOtherKeys: true,
  examples: [
    {
      campaign_key: 'AE-spring-1',
      kind: 'automated-email',
      automated: true,
      name: 'Spring welcome series',
      state: 'Active',
      activated_at: '2026-03-01T10:00:00Z',
      campaign_tags: [{ id: 7, label: 'Seasonal' }],
      folder: { id: 3, name: 'Automations' },
      permissions: { marketing_permission: 'can_email' },
      product_ids: ['SKU-4411'],
    },
    { campaign_key: 'NL-2026-03', kind: 'email', automated: 'false', name: 'March newsletter', state: 'draft', utm_campaign: 'march-news' },
  ],
};
