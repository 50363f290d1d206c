-- bodygraph bookkeeping, schema 3 (PostgreSQL): the Idempotency-Key header of the charged
-- endpoints. No birth data: a hash of the account and the client's key, a hash of the
-- endpoint and the request body, and the charge (the usage row) the first request made;
-- a replay recomputes its (deterministic) answer. Rows expire after 24 hours and are
-- pruned by the workers' housekeeping.
CREATE TABLE idempotency_keys (
    key_hash TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    usage_id BIGINT NOT NULL REFERENCES usage_log (id),
    created_us BIGINT NOT NULL
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_us);
