-- bodygraph bookkeeping, schema 6 (PostgreSQL): months of the ingress calendar, shared by
-- every worker and instance on this database (bodygraph_server.calendar_cache). Not
-- money and not about anyone: a row is a month's ingresses of every body at one level,
-- keyed by what they depend on; a lost or deleted row is computed again.
CREATE TABLE calendar_blocks (
    block_key TEXT PRIMARY KEY,
    ingresses BYTEA NOT NULL,
    created_us BIGINT NOT NULL
);
