-- mds_personal_epoch_unchanged as a statement that fails (SQLSTATE MDSPD) rather than answers false,
-- so a projection's page can check it in the same round trip as its checkpoint move and COMMIT.
CREATE FUNCTION mds_assert_personal_epoch(since bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT mds_personal_epoch_unchanged(since) THEN
    RAISE EXCEPTION 'personal data was forgotten since the page was read' USING ERRCODE = 'MDSPD';
  END IF;
END
$$;
