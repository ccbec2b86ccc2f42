import { LIMITS, type FieldTable, type RecordTable } from '#mds/imports';
import { CAMPAIGN_KEY_PATTERN } from './campaign.fields';
import { CAMPAIGN_EVENT_TYPES, STATISTICS_EVENT_NAMES } from './campaigns.events';

/** A campaign event names its customer by at least one of these. */
export const CAMPAIGN_EVENT_IDENTIFIERS = ['customer_id', 'phone_number', 'email', 'customer_token'] as const;

/** A campaign event's fields: the import coerces by these kinds (campaign-event-import.ts). */
export const CAMPAIGN_EVENT_FIELDS: FieldTable = {
  campaign_key: { kind: 'id', pattern: CAMPAIGN_KEY_PATTERN, required: true, description: 'The campaign (it may be imported later: the event counts once it arrives)', example: 'AE-spring-1' },
  type: {
    kind: 'text',
    max: LIMITS.code,
    required: true,
    description: `${CAMPAIGN_EVENT_TYPES.join(', ')} in any case; the statistics' plural names (${Object.values(STATISTICS_EVENT_NAMES).filter((n) => !(CAMPAIGN_EVENT_TYPES as readonly string[]).includes(n)).join(', ')}) and spam-report are read too`,
    example: 'open',
  },
  date: { kind: 'datetime', required: true, description: 'When it happened', example: '2026-03-02T08:15:00Z' },
  customer_id: { kind: 'id', description: 'The customer\'s external_id', example: 'C-1001' },
  email: { kind: 'email', description: 'The customer\'s e-mail', example: 'anna.virtanen@example.com' },
  phone_number: { kind: 'phone', description: 'The customer\'s phone', example: '+358401234567' },
  customer_token: { kind: 'key', description: 'The customer\'s `cb_token`', example: 'cbt-5f2a91' },
};

export const CAMPAIGN_EVENT_RECORD: RecordTable = {
  name: 'CampaignEventRecord',
  description: 'An event of a campaign message: campaign_key, type, date and one of customer_id, phone_number, email, customer_token, coerced as customer events are. Other keys (a clicked link …) are kept.',
  fields: CAMPAIGN_EVENT_FIELDS,
  identifiedBy: CAMPAIGN_EVENT_IDENTIFIERS,
  keepsOtherKeys: true,
  examples: [
    { campaign_key: 'AE-spring-1', type: 'sent', date: '2026-03-01T10:05:00Z', customer_id: 'C-1001' },
    { campaign_key: 'AE-spring-1', type: 'OPEN', date: '2026-03-01 11:20:00', email: 'anna.virtanen@example.com' },
    { campaign_key: 'AE-spring-1', type: 'clicks', date: '2026-03-01T11:21:00Z', customer_id: 'C-1001', link: 'https://shop.example.com/p/4411' },
    { campaign_key: 'AE-spring-1', type: 'sent', date: '2026-03-01T10:05:00Z', phone_number: '+358401234567' },
  ],
};
