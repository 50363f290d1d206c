-- bodygraph bookkeeping, schema 5 (PostgreSQL): the bookkeeping of a chart request in one
-- round trip per step. Each function is called alone in autocommit mode, so the call is
-- one transaction; inside it every statement takes a new snapshot (READ COMMITTED), so a
-- count made after a row lock sees whatever the lock's previous holder committed.
-- The rules stay in Python: these functions do the usual case only and otherwise leave
-- the work to the general path (see bodygraph_server/store/request_path.py).

-- The key lookup and, for a current key of an active account, the rate-limit hit (the
-- same statements as RateHitRepository.rate_limit_hit, under the bucket's row lock). The
-- hit's commit does not wait for the WAL flush (a throttle, not money). No row: no such
-- key. allowed IS NULL: the account is inactive and nothing was counted.
CREATE FUNCTION bodygraph_admit(p_key TEXT, p_at BIGINT, p_cutoff BIGINT, p_limit INTEGER)
RETURNS TABLE (key_id BIGINT, key_hash TEXT, account_id BIGINT, key_created_us BIGINT,
               active BOOLEAN, plan TEXT, overage_enabled BOOLEAN, created_us BIGINT,
               period_index INTEGER, allowed BOOLEAN, hits BIGINT, oldest_us BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    found_key RECORD;
    counted BIGINT;
    oldest BIGINT;
BEGIN
    SELECT k.id, k.key_hash, k.account_id, k.created_us, a.active, a.plan,
           a.overage_enabled, a.created_us AS account_created_us, a.period_index
      INTO found_key
      FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE k.key_hash = p_key AND k.revoked_us IS NULL;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF found_key.active THEN
        PERFORM set_config('synchronous_commit', 'off', true);
        INSERT INTO rate_buckets (bucket) VALUES (p_key)
            ON CONFLICT (bucket) DO UPDATE SET bucket = excluded.bucket;
        SELECT COUNT(*), MIN(h.at_us) INTO counted, oldest
          FROM rate_hits h WHERE h.bucket = p_key AND h.at_us > p_cutoff;
        allowed := counted < p_limit;
        IF allowed THEN
            INSERT INTO rate_hits (bucket, at_us) VALUES (p_key, p_at);
            counted := counted + 1;
            oldest := LEAST(COALESCE(oldest, p_at), p_at);
        END IF;
    END IF;
    RETURN QUERY SELECT found_key.id, found_key.key_hash, found_key.account_id,
        found_key.created_us, found_key.active, found_key.plan, found_key.overage_enabled,
        found_key.account_created_us, found_key.period_index, allowed, counted, oldest;
END
$$;

-- A reservation (ChargeRepository.reserve without an idempotency key) when nothing but
-- the charge is to be done: the account, locked, is active, still in period p_period (of
-- anchor p_created, which ends at p_end, computed by the caller) and not cancelled at
-- p_at. Then, as in Python: with a positive balance 1 credit is taken, else with overage
-- enabled an overage call is recorded; the usage row is inserted: its id, credits,
-- overage flag and the balance after. Otherwise nothing changes and no row comes back: the
-- caller takes the general path (rollover, refusals). Such a call only held a row lock,
-- so its commit does not wait for the WAL flush.
CREATE FUNCTION bodygraph_reserve(p_account BIGINT, p_endpoint TEXT, p_at BIGINT,
                                  p_created BIGINT, p_period INTEGER, p_end BIGINT,
                                  p_status TEXT)
RETURNS TABLE (usage_id BIGINT, credits INTEGER, overage BOOLEAN, balance_after BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    account RECORD;
    taken INTEGER := 0;
BEGIN
    SELECT a.created_us, a.active, a.overage_enabled, a.cancel_at_us, a.period_index,
           a.balance
      INTO account
      FROM accounts a WHERE a.id = p_account FOR UPDATE;
    IF NOT FOUND OR account.created_us <> p_created OR account.period_index <> p_period
       OR p_at >= p_end OR NOT account.active
       OR (account.cancel_at_us IS NOT NULL AND p_at >= account.cancel_at_us)
       OR (account.balance <= 0 AND NOT account.overage_enabled) THEN
        PERFORM set_config('synchronous_commit', 'off', true);
        RETURN;
    END IF;
    IF account.balance > 0 THEN
        UPDATE accounts SET balance = balance - 1, updated_us = p_at WHERE id = p_account;
        taken := 1;
    END IF;
    RETURN QUERY INSERT INTO usage_log (account_id, period_index, endpoint, credits, overage,
                                        status, created_us)
        VALUES (p_account, p_period, p_endpoint, taken, taken = 0, p_status, p_at)
        RETURNING id, taken, taken = 0, account.balance - taken;
END
$$;
