-- A sale transaction's rows across imports (README "Sales"): an import whose rows carry an
-- external_id upserts them by it (rows it does not send stay), one whose rows carry none replaces
-- them, one with no rows (a header row alone) keeps them. Folded in log order by an aggregate, then
-- laid over the rows the transaction had. In public: every generation of the sales read model (and
-- of what reads it) uses them.
CREATE FUNCTION public.sale_rows_merge(a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  WITH old AS (SELECT x, o FROM jsonb_array_elements(coalesce(a, '[]')) WITH ORDINALITY AS t(x, o)),
       sent AS (SELECT x, o, min(o) OVER (PARTITION BY x->>'external_id') AS first_o, max(o) OVER (PARTITION BY x->>'external_id') AS last_o
                  FROM jsonb_array_elements(coalesce(b, '[]')) WITH ORDINALITY AS t(x, o)),
       latest AS (SELECT x, first_o FROM sent WHERE o = last_o),
       merged AS (
         SELECT coalesce(l.x, old.x) AS x, 0 AS part, old.o AS o
           FROM old LEFT JOIN latest l ON old.x ? 'external_id' AND l.x->>'external_id' = old.x->>'external_id'
         UNION ALL
         SELECT l.x, 1, l.first_o FROM latest l
          WHERE NOT EXISTS (SELECT 1 FROM old WHERE old.x ? 'external_id' AND old.x->>'external_id' = l.x->>'external_id'))
  SELECT coalesce(jsonb_agg(x ORDER BY part, o), '[]'::jsonb) FROM merged
$$;

CREATE FUNCTION public.sale_rows_step(state jsonb, rows jsonb, mode text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE coalesce(mode, 'replace')
           WHEN 'keep' THEN state
           WHEN 'upsert' THEN jsonb_build_object('replace', state->'replace', 'rows', public.sale_rows_merge(state->'rows', rows))
           ELSE jsonb_build_object('replace', true, 'rows', coalesce(rows, '[]'::jsonb)) END
$$;

CREATE AGGREGATE public.sale_rows_fold(jsonb, text) (SFUNC = public.sale_rows_step, STYPE = jsonb, INITCOND = '{"replace": false, "rows": []}');

CREATE FUNCTION public.sale_rows_after(old jsonb, fold jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN (fold->>'replace')::boolean THEN fold->'rows' ELSE public.sale_rows_merge(coalesce(old, '[]'::jsonb), fold->'rows') END
$$;
