-- bodygraph bookkeeping, schema 1 (PostgreSQL). Instants are integer microseconds since
-- the Unix epoch (UTC). No birth data, place or coordinates are ever stored. Tables are
-- created in the connection's current schema (set search_path through the URL's
-- options to use another one).
CREATE TABLE accounts (
    id BIGSERIAL PRIMARY KEY,
    plan TEXT NOT NULL,
    billing TEXT NOT NULL,
    created_us BIGINT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    overage_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    cancel_requested_us BIGINT,
    cancel_at_us BIGINT,
    period_index INTEGER NOT NULL,
    balance BIGINT NOT NULL CHECK (balance >= 0),
    updated_us BIGINT NOT NULL
);
CREATE TABLE api_keys (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    key_hash TEXT NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    created_us BIGINT NOT NULL,
    revoked_us BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);
CREATE TABLE ledger (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    at_us BIGINT NOT NULL,
    period_index INTEGER NOT NULL,
    kind TEXT NOT NULL,
    delta BIGINT NOT NULL,
    balance_after BIGINT NOT NULL,
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX ledger_account ON ledger (account_id, id);
CREATE TABLE usage_log (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    period_index INTEGER NOT NULL,
    endpoint TEXT NOT NULL,
    credits INTEGER NOT NULL CHECK (credits IN (0, 1)),
    overage BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    created_us BIGINT NOT NULL,
    settled_us BIGINT
);
CREATE INDEX usage_log_account_period ON usage_log (account_id, period_index);
CREATE TABLE rate_buckets (
    bucket TEXT PRIMARY KEY
);
CREATE TABLE rate_hits (
    bucket TEXT NOT NULL,
    at_us BIGINT NOT NULL
);
CREATE INDEX rate_hits_bucket_at ON rate_hits (bucket, at_us);
