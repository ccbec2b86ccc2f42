-- Record merging shared by import projections: later records of a batch override earlier ones key
-- by key; a key sent as "" is removed once the merge is done.
CREATE AGGREGATE public.jsonb_merge_agg(jsonb) (SFUNC = jsonb_concat, STYPE = jsonb, INITCOND = '{}');

CREATE FUNCTION public.jsonb_strip_empty(j jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb) FROM jsonb_each(j) WHERE value <> '""'::jsonb
$$;
