/**
 * The writer chain (issue 31): `write_claims` names, per namespace (scope `ns:<name>`; `*` for the transactions of
 * every namespace: sweeps, prunes), the transaction that wrote it last. Every write transaction
 * claims its scope (hub_claim_namespace, hub_claim_all) under its lock. A process that keeps a
 * namespace's rows from its last transaction (pg-store.ts, "carried rows") names that transaction
 * as the one expected: if another wrote since, hub_claim_namespace raises SQLSTATE HB001 and the
 * transaction is run again on rows read afresh. hub_expect raises HB002 for a row a carried
 * transaction took as new (a request id, a hook event id, a tool use id) that exists after all.
 */
export const migration024 = `
CREATE TABLE write_claims (
  scope TEXT COLLATE "C" PRIMARY KEY,
  writer TEXT NOT NULL
);

CREATE FUNCTION hub_claim_namespace(claimed TEXT, expected TEXT, expected_all TEXT, mine TEXT) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
  last_writer TEXT;
  all_writer TEXT;
BEGIN
  SELECT writer INTO all_writer FROM write_claims WHERE scope = '*';
  IF expected IS NOT NULL THEN
    SELECT writer INTO last_writer FROM write_claims WHERE scope = claimed;
    IF last_writer IS DISTINCT FROM expected OR all_writer IS DISTINCT FROM expected_all THEN
      RAISE EXCEPTION '% was written by another transaction since this process kept its rows', claimed
        USING ERRCODE = 'HB001', DETAIL = COALESCE(last_writer, '');
    END IF;
  END IF;
  INSERT INTO write_claims (scope, writer) VALUES (claimed, mine) ON CONFLICT (scope) DO UPDATE SET writer = EXCLUDED.writer;
  RETURN all_writer;
END $$;

CREATE FUNCTION hub_claim_all(mine TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO write_claims (scope, writer) VALUES ('*', mine) ON CONFLICT (scope) DO UPDATE SET writer = EXCLUDED.writer;
END $$;

CREATE FUNCTION hub_expect(holds BOOLEAN, what TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT holds THEN
    RAISE EXCEPTION '%', what USING ERRCODE = 'HB002';
  END IF;
END $$;
`;
