import * as imports from '#mds/imports';
import { RecordProblem, type ImportKind } from '#mds/imports';
import type { Settings } from '#mds/settings';
import { CAMPAIGN_EVENT_FIELDS, CAMPAIGN_EVENT_IDENTIFIERS } from './campaign-event.fields';
import { CAMPAIGN_KEY } from './campaign-import';
import { CAMPAIGN_EVENT_TYPES, CAMPAIGN_EVENTS_IMPORTED, STATISTICS_EVENT_NAMES, type CampaignEventRecord, type CampaignEventType } from './campaigns.events';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { assertUsableKey, coerceDateTime, coerceId, coerceString, field, maxOf, normalizePhone, recordObject, EMAIL } = imports;

/** Key of the normalised phone number carried for matching ("$" keys are matching aids, never shown). */
export const CAMPAIGN_EVENT_PHONE_KEY = '$phone';

/** `open`, `OPEN`, `opens`, `spam-report` … → the type; undefined for anything else. */
const TYPES: Record<string, CampaignEventType> = Object.fromEntries(
  CAMPAIGN_EVENT_TYPES.flatMap((t) => [[t, t], [STATISTICS_EVENT_NAMES[t], t]]),
);

/**
 * A campaign message's events (sent, delivered, open, click, unsubscribe, spam_report, bounce) with
 * the customer identified as customer events identify theirs: customer_id, email, phone_number or
 * customer_token, with the same leniency. An event of a campaign not imported yet is kept and counts
 * once the campaign arrives. Other keys (a clicked link …) are kept.
 */
export function campaignEventImport(settings: Settings): ImportKind<CampaignEventRecord> {
  return {
    kind: 'campaign_events',
    chunkEventType: CAMPAIGN_EVENTS_IMPORTED,
    validate(raw) {
      const r = recordObject(raw, 'a campaign event');
      const key = field(r, 'campaign_key', coerceId);
      if (key === undefined) throw new RecordProblem('campaign_key', 'required', 'campaign_key is required');
      if (!CAMPAIGN_KEY.test(key)) throw new RecordProblem('campaign_key', 'invalid_campaign_key', 'campaign_key: letters, digits and punctuation, no spaces or commas');
      const rawType = field(r, 'type', (v) => coerceString(v, CAMPAIGN_EVENT_FIELDS.type.max));
      if (rawType === undefined || rawType.trim() === '') throw new RecordProblem('type', 'required', 'type is required on every campaign event');
      const type = TYPES[rawType.trim().toLowerCase().replace(/[-\s]/g, '_')];
      if (!type) throw new RecordProblem('type', 'unknown_campaign_event_type', `"${rawType.slice(0, 64)}" is not a campaign event type: ${CAMPAIGN_EVENT_TYPES.join(', ')}`);
      const date = field(r, 'date', (v) => coerceDateTime(v, settings.timezone));
      if (date === undefined) throw new RecordProblem('date', 'required', 'date is required on every campaign event');
      const out: CampaignEventRecord = { campaign_key: key, type, date };
      for (const [name, value] of Object.entries(r)) {
        if (name === 'campaign_key' || name === 'type' || name === 'date' || value === null || value === undefined) continue;
        assertUsableKey(name);
        let v: unknown;
        if (name === 'customer_id') v = field(r, name, coerceId);
        else if (name === 'email') {
          v = field(r, name, (x) => coerceString(x, maxOf(CAMPAIGN_EVENT_FIELDS.email)))?.trim().toLowerCase() || undefined;
          if (typeof v === 'string' && !EMAIL.test(v)) throw new RecordProblem('email', 'invalid_email', `"${v}" is not an e-mail address`);
        } else if (name === 'phone_number') {
          const phone = field(r, name, (x) => coerceString(x, maxOf(CAMPAIGN_EVENT_FIELDS.phone_number)))?.trim();
          if (phone) out[CAMPAIGN_EVENT_PHONE_KEY] = normalizePhone(phone, settings.default_country) ?? phone;
          v = phone || undefined;
        } else if (name === 'customer_token') v = field(r, name, (x) => coerceString(x, maxOf(CAMPAIGN_EVENT_FIELDS.customer_token)))?.trim() || undefined;
        else v = value;
        if (v !== undefined) out[name] = v;
      }
      if (!CAMPAIGN_EVENT_IDENTIFIERS.some((k) => out[k] !== undefined)) {
        throw new RecordProblem(null, 'missing_identifier', 'a campaign event needs one of customer_id, phone_number, email, customer_token');
      }
      return out;
    },
  };
}
