import * as imports from '#mds/imports';
import { RecordProblem, type ImportKind } from '#mds/imports';
import type { Settings } from '#mds/settings';
import { CAMPAIGN_FIELDS, CAMPAIGN_KEY_PATTERN } from './campaign.fields';
import { CAMPAIGNS_IMPORTED, type CampaignRecord } from './campaigns.events';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { assertUsableKey, coerceBoolean, coerceDateTime, coerceId, coerceList, coerceNumber, coerceString, coercedSchema, compiledOnFirstUse, field, maxOf, namesOf, recordObject, LIMITS } = imports;

/** A campaign key: no white space and no comma (`keys` lists them comma-separated). */
export const CAMPAIGN_KEY = new RegExp(CAMPAIGN_KEY_PATTERN);

/** The campaign after coercion, made from CAMPAIGN_FIELDS and compiled once: the "validate" half of "coerce, then validate". Other keys are kept. */
const CAMPAIGN_SCHEMA = coercedSchema(CAMPAIGN_FIELDS);
/** Strings taken up to LIMITS.shortText; the schema holds each to its own limit. */
const TEXT_FIELDS = namesOf(CAMPAIGN_FIELDS, 'text');

const validator = compiledOnFirstUse(CAMPAIGN_SCHEMA);
const TAG = CAMPAIGN_FIELDS.campaign_tags.members!;
const FOLDER = CAMPAIGN_FIELDS.folder.members!;
const PERMISSIONS = CAMPAIGN_FIELDS.permissions.members!;

/** Reads a nested object's member, reporting a problem as the top-level field's (`folder`, not `id`). */
function member<T>(o: Record<string, unknown>, name: string, coerce: (v: unknown) => T, top: string, code: string): T {
  try {
    return coerce(o[name]);
  } catch (err) {
    if (err instanceof imports.CoercionError) throw new RecordProblem(top, code, `${top}.${name}: ${err.message}`);
    throw err;
  }
}

/** `campaign_tags`: `[{id, label}]` (ids as strings or whole numbers). */
function tags(value: unknown): Array<{ id: string; label: string }> {
  if (!Array.isArray(value)) throw new RecordProblem('campaign_tags', 'invalid_tags', 'campaign_tags: a list of {id, label}');
  return value.map((t, i) => {
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw new RecordProblem('campaign_tags', 'invalid_tags', `campaign_tags[${i}]: an object {id, label}`);
    const o = t as Record<string, unknown>;
    const id = member(o, 'id', coerceId, 'campaign_tags', 'invalid_tags');
    const label = member(o, 'label', (v) => coerceString(v, maxOf(TAG.label)), 'campaign_tags', 'invalid_tags');
    if (id === undefined || label === undefined) throw new RecordProblem('campaign_tags', 'invalid_tags', `campaign_tags[${i}]: id and label are required`);
    return { id, label };
  });
}

/** `folder`: `{id, name}` with a whole-number id. */
function folder(value: unknown): { id: number; name?: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RecordProblem('folder', 'invalid_folder', 'folder: an object {id, name}');
  const o = value as Record<string, unknown>;
  const id = member(o, 'id', coerceNumber, 'folder', 'invalid_folder');
  if (id === undefined || !Number.isSafeInteger(id)) throw new RecordProblem('folder', 'invalid_folder', 'folder.id must be a whole number');
  const name = member(o, 'name', (v) => coerceString(v, maxOf(FOLDER.name)), 'folder', 'invalid_folder');
  return name === undefined ? { id } : { id, name };
}

/** `permissions`: `{marketing_permission}` (can_email, can_sms …); other keys are refused by the schema. */
function permissions(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RecordProblem('permissions', 'invalid_permissions', 'permissions: an object {marketing_permission}');
  const o = value as Record<string, unknown>;
  const mp = member(o, 'marketing_permission', (v) => coerceString(v, maxOf(PERMISSIONS.marketing_permission)), 'permissions', 'invalid_permissions');
  return { ...o, ...(mp === undefined ? {} : { marketing_permission: mp }) };
}

/** active and draft in any case become lower case (the spec's spelling); other states are kept as sent. */
function state(value: string): string {
  const lower = value.trim().toLowerCase();
  return lower === 'active' || lower === 'draft' ? lower : value.trim();
}

/**
 * Campaigns as a marketing system sends them: `campaign_key` the identity; kind (automated-email,
 * email, sms, EXT, or others kept), automated, name, state, activated_at, utm_campaign, campaign_tags
 * `[{id, label}]`, folder `{id, name}`, permissions `{marketing_permission}`, product_ids (the
 * campaign's own products). A key imported again is patched; `""` removes a field; other keys are kept.
 */
export function campaignImport(settings: Settings): ImportKind<CampaignRecord> {
  return {
    kind: 'campaigns',
    chunkEventType: CAMPAIGNS_IMPORTED,
    validate(raw) {
      const r = recordObject(raw, 'a campaign');
      const key = field(r, 'campaign_key', coerceId);
      if (key === undefined) throw new RecordProblem('campaign_key', 'required', 'campaign_key is required');
      const out: CampaignRecord = { campaign_key: key };
      for (const [name, value] of Object.entries(r)) {
        if (name === 'campaign_key' || value === null || value === undefined) continue;
        assertUsableKey(name);
        let v: unknown;
        if (value === '') v = '';
        else if (name === 'automated') v = field(r, name, coerceBoolean);
        else if (name === 'state') v = state(field(r, name, (x) => coerceString(x, CAMPAIGN_FIELDS.state.max)) ?? '');
        else if (TEXT_FIELDS.has(name)) v = field(r, name, (x) => coerceString(x, LIMITS.shortText))?.trim();
        else if (name === 'activated_at') v = field(r, name, (x) => coerceDateTime(x, settings.timezone));
        else if (name === 'campaign_tags') v = tags(value);
        else if (name === 'folder') v = folder(value);
        else if (name === 'permissions') v = permissions(value);
        else if (name === 'product_ids') v = field(r, name, coerceList);
        else v = value;
        if (v !== undefined) out[name] = v;
      }
      // Removals ("") are patches, not values: the schema checks the values sent.
      const validate = validator();
      if (!validate(Object.fromEntries(Object.entries(out).filter(([, v]) => v !== '')))) {
        const error = validate.errors![0];
        const name = error.instancePath.split('/')[1] || 'campaign_key';
        throw new RecordProblem(name, `invalid_${error.keyword}`, `${name}: ${name === 'campaign_key' ? 'letters, digits and punctuation, no spaces or commas' : (error.message ?? 'is invalid')}`);
      }
      return out;
    },
  };
}
