-- A transaction's tags are `tags` (the spec's name), sent on its header row or as `sale_tags`. Imports
-- from before kept `sale_tags`; this gives their fields, and bulk updates, the current shape.
CREATE FUNCTION sale_fields(f jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN f ? 'sale_tags' THEN (f - 'sale_tags') || jsonb_build_object('tags', f->'sale_tags') ELSE f END
$$;
