-- Customers as imported, merged by identity. customer_id derives from the log position of the
-- record that created the customer (position * 10000 + index in its chunk), so ids are the same
-- after any rebuild.
CREATE TABLE customers (
  customer_id bigint PRIMARY KEY,
  external_id text,
  phone text,
  email text,
  data jsonb NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  is_forgotten boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  updated_position bigint NOT NULL
);
CREATE UNIQUE INDEX customers_external_id ON customers (external_id) WHERE external_id IS NOT NULL;
CREATE INDEX customers_phone ON customers (phone, customer_id) WHERE phone IS NOT NULL;
CREATE INDEX customers_email ON customers (email, customer_id) WHERE email IS NOT NULL;
CREATE INDEX customers_updated ON customers (updated_at, customer_id);
-- Subscription events match a customer by its cb_token when they carry nothing else.
CREATE INDEX customers_cb_token ON customers ((data->>'cb_token'), customer_id) WHERE data ? 'cb_token';

-- Hashes of the identifiers of forgotten customers: later imports with them are ignored, so the
-- data is not resurrected; the identifiers themselves are not kept.
CREATE TABLE forgotten_identifiers (
  kind text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (kind, hash)
);

-- Lists: replaced when sent, then .add appended (in order, without repeats), then .remove removed.
CREATE FUNCTION list_update(cur jsonb, rep jsonb, additions jsonb, removals jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_agg(v ORDER BY first_seen), '[]'::jsonb)
    FROM (SELECT v, min(o) AS first_seen
            FROM (SELECT v, o FROM jsonb_array_elements_text(coalesce(rep, cur, '[]'::jsonb)) WITH ORDINALITY AS x(v, o)
                  UNION ALL
                  SELECT v, 1000000 + o FROM jsonb_array_elements_text(coalesce(additions, '[]'::jsonb)) WITH ORDINALITY AS y(v, o)) a
           WHERE NOT (v = ANY (ARRAY(SELECT jsonb_array_elements_text(coalesce(removals, '[]'::jsonb)))))
           GROUP BY v) b
$$;

-- Only supplied keys change; "" removes a key; list operations applied; "$" keys are matching aids
-- ($phone, $token, $no_create; the projection calls this only for records that need it, see NEEDS_MERGE).
CREATE FUNCTION customer_merge(cur jsonb, rec jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  merged jsonb := cur || (rec - ARRAY['$phone', '$token', '$no_create', '$merge', 'tags.add', 'tags.remove', 'mailing_lists.add', 'mailing_lists.remove']);
BEGIN
  IF rec ?| ARRAY['tags.add', 'tags.remove'] THEN
    merged := jsonb_set(merged, '{tags}', list_update(cur->'tags', rec->'tags', rec->'tags.add', rec->'tags.remove'));
  END IF;
  IF rec ?| ARRAY['mailing_lists.add', 'mailing_lists.remove'] THEN
    merged := jsonb_set(merged, '{mailing_lists}', list_update(cur->'mailing_lists', rec->'mailing_lists', rec->'mailing_lists.add', rec->'mailing_lists.remove'));
  END IF;
  IF jsonb_path_exists(rec, '$.* ? (@ == "")') THEN
    merged := public.jsonb_strip_empty(merged);
  END IF;
  RETURN merged;
END
$$;

CREATE FUNCTION identifier_hash(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(v, 'UTF8')), 'hex')
$$;
