-- The chunk type of each list: an erasure looks for a person's records among other kinds of chunks.
ALTER TABLE mds_personal_data ADD COLUMN type text;

-- A redaction marker: what forgetting leaves of a personal value. Equal values of one erasure get
-- equal markers (so records that found one another by a phone or an e-mail still do in a rebuild),
-- and nothing of the value can be recovered from one: the nonce is random and kept nowhere. A marker
-- stays as it is, so erasing again changes nothing.
CREATE FUNCTION mds_personal_marker(v text, nonce text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL OR starts_with(v, '[forgotten ') THEN v
              ELSE '[forgotten ' || left(encode(sha256(convert_to(nonce || v, 'UTF8')), 'hex'), 12) || ']' END
$$;

-- A JSON object with the values of `keys` (every key when null; `<group>.<key>` inside a group such
-- as a sale's fields) replaced by markers. E-mail addresses are marked lower-cased, as they are matched.
CREATE FUNCTION mds_personal_redact(doc jsonb, nonce text, keys text[] DEFAULT NULL) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF doc IS NULL OR jsonb_typeof(doc) <> 'object' THEN RETURN doc; END IF;
  RETURN (SELECT coalesce(jsonb_object_agg(k, CASE
      WHEN jsonb_typeof(v) = 'object' AND (keys IS NULL OR EXISTS (SELECT 1 FROM unnest(keys) x WHERE starts_with(x, k || '.')))
        THEN mds_personal_redact(v, nonce, (SELECT array_agg(substr(x, length(k) + 2)) FROM unnest(keys) x WHERE starts_with(x, k || '.')))
      WHEN jsonb_typeof(v) = 'null' OR NOT (keys IS NULL OR k = ANY (keys)) THEN v
      ELSE to_jsonb(mds_personal_marker(CASE WHEN k LIKE '%email' THEN lower(v #>> '{}') ELSE v #>> '{}' END, nonce)) END), '{}'::jsonb)
    FROM jsonb_each(doc) AS e(k, v));
END
$$;

-- Forgetting and the projections that read the lists, which run concurrently: a projection that read
-- a list before a forgetting rewrote it must not commit what it built from the old text after the
-- forgetting has scrubbed the read models. Each forgetting takes this lock exclusively for the rest of
-- its transaction and counts itself in the epoch; a projection notes the epoch before reading a page
-- and, just before committing, takes the lock shared and checks the epoch: unchanged (but for its own
-- forgettings), it commits; otherwise it reads the page again. 7236155 is the personal-data lock key.
CREATE TABLE mds_personal_epoch (epoch bigint NOT NULL);
INSERT INTO mds_personal_epoch VALUES (0);

CREATE FUNCTION mds_personal_erasure_begin() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7236155);
  UPDATE mds_personal_epoch SET epoch = epoch + 1;
  PERFORM set_config('mds.own_erasures', (coalesce(nullif(current_setting('mds.own_erasures', true), '')::int, 0) + 1)::text, true);
END
$$;

CREATE FUNCTION mds_personal_epoch_unchanged(since bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(7236155);
  RETURN (SELECT epoch FROM mds_personal_epoch) = since + coalesce(nullif(current_setting('mds.own_erasures', true), '')::int, 0);
END
$$;
