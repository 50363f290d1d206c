-- bodygraph bookkeeping, schema 7 (PostgreSQL): the jobs' completion webhooks
-- (bodygraph_server.webhooks). A delivery is one event for one callback URL, sent until
-- answered 2xx or its schedule of retries runs out; each attempt is a row of its own.
CREATE TABLE webhook_deliveries (
    id BIGSERIAL PRIMARY KEY,
    message_id TEXT NOT NULL UNIQUE,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    job_id TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_us BIGINT NOT NULL,
    created_us BIGINT NOT NULL,
    finished_us BIGINT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_us);
CREATE TABLE webhook_attempts (
    delivery_id BIGINT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    started_us BIGINT NOT NULL,
    duration_us BIGINT NOT NULL,
    status_code INTEGER,
    error TEXT NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
