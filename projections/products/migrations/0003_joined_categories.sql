-- category and category_id are strings (the spec's types): a list is kept joined with ", ". Products
-- imported before that are lists in the log; this gives their records, and bulk updates, the same shape.
CREATE FUNCTION product_record(rec jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(rec->'category') = 'array' OR jsonb_typeof(rec->'category_id') = 'array'
    THEN rec || (SELECT jsonb_object_agg(k, (SELECT coalesce(string_agg(v, ', ' ORDER BY o), '') FROM jsonb_array_elements_text(rec->k) WITH ORDINALITY AS x(v, o)))
                   FROM unnest(ARRAY['category', 'category_id']) AS k WHERE jsonb_typeof(rec->k) = 'array')
    ELSE rec END
$$;
