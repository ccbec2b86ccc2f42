-- Subscription events match a customer by its cb_token when they carry nothing else.
CREATE INDEX customers_cb_token ON customers ((data->>'cb_token'), customer_id) WHERE data ? 'cb_token';

-- As 0001, but every "$" key (matching aids: $phone, $token, $no_create) is left out of the data.
CREATE OR REPLACE FUNCTION customer_merge(cur jsonb, rec jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  merged jsonb := cur || (rec - ARRAY['$phone', '$token', '$no_create', 'tags.add', 'tags.remove', 'mailing_lists.add', 'mailing_lists.remove']);
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
