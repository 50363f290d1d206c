-- bodygraph bookkeeping, schema 8 (PostgreSQL): each account's webhook signing secret (the
-- Standard Webhooks form whsec_<base64>), made on first ask and replaced by a rotation.
CREATE TABLE webhook_secrets (
    account_id BIGINT PRIMARY KEY REFERENCES accounts (id),
    secret TEXT NOT NULL,
    created_us BIGINT NOT NULL
);
