/**
 * Events of the campaigns context: campaigns and the message events of their audience arrive as
 * import runs (`import-<run_id>`), one chunk event per ~1,000 records, like every other import.
 */
export const CAMPAIGNS_IMPORTED = 'CampaignsImported';
export const CAMPAIGN_EVENTS_IMPORTED = 'CampaignEventsImported';
/** A campaign event record's personal fields: the customer's contact details (see PERSONAL_FIELDS in libs/runtime). */
export const CAMPAIGN_EVENT_PERSONAL_FIELDS = ['email', 'phone_number', '$phone', 'customer_token'] as const;

/** A campaign message's events, as imported (singular) and as the statistics name them (plural). */
export const CAMPAIGN_EVENT_TYPES = ['sent', 'delivered', 'open', 'click', 'unsubscribe', 'spam_report', 'bounce'] as const;
export type CampaignEventType = (typeof CAMPAIGN_EVENT_TYPES)[number];
export const STATISTICS_EVENT_NAMES: Record<CampaignEventType, string> = {
  sent: 'sent',
  delivered: 'delivered',
  open: 'opens',
  click: 'clicks',
  unsubscribe: 'unsubscribes',
  spam_report: 'spam_reports',
  bounce: 'bounces',
};

/** Campaign kinds and states without statistics (the spec: draft campaigns and campaigns of type EXT). */
export const KIND_WITHOUT_STATISTICS = 'EXT';
export const STATE_WITHOUT_STATISTICS = 'draft';

/** A campaign as stored: the fields sent (coerced), patched by later imports of its key. */
export type CampaignRecord = Record<string, unknown> & { campaign_key: string };

/** A campaign event as stored: its campaign, type and time, and the identifiers of its customer. */
export type CampaignEventRecord = Record<string, unknown> & { campaign_key: string; type: CampaignEventType; date: string };
