-- bodygraph bookkeeping, schema 1 (SQLite). Instants are integer microseconds since the
-- Unix epoch (UTC). No birth data, place or coordinates are ever stored.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    plan TEXT NOT NULL,
    billing TEXT NOT NULL,
    created_us INTEGER NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    overage_enabled INTEGER NOT NULL DEFAULT 0,
    cancel_requested_us INTEGER,
    cancel_at_us INTEGER,
    period_index INTEGER NOT NULL,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    updated_us INTEGER NOT NULL
);
CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    key_hash TEXT NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    created_us INTEGER NOT NULL,
    revoked_us INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id);
CREATE TABLE ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    at_us INTEGER NOT NULL,
    period_index INTEGER NOT NULL,
    kind TEXT NOT NULL,
    delta INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX ledger_account ON ledger (account_id, id);
CREATE TABLE usage_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    period_index INTEGER NOT NULL,
    endpoint TEXT NOT NULL,
    credits INTEGER NOT NULL CHECK (credits IN (0, 1)),
    overage INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_us INTEGER NOT NULL,
    settled_us INTEGER
);
CREATE INDEX usage_log_account_period ON usage_log (account_id, period_index);
CREATE TABLE rate_buckets (
    bucket TEXT PRIMARY KEY
);
CREATE TABLE rate_hits (
    bucket TEXT NOT NULL,
    at_us INTEGER NOT NULL
);
CREATE INDEX rate_hits_bucket_at ON rate_hits (bucket, at_us);
