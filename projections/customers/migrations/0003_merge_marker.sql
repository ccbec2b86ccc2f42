-- "$merge" marks the records that need customer_merge (list operations, "" removals); it is a
-- matching aid like the other "$" keys and never part of the data.
CREATE OR REPLACE FUNCTION customer_merge(cur jsonb, rec jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
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
