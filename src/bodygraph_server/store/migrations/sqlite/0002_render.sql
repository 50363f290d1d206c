-- bodygraph bookkeeping, schema 2 (SQLite): render templates (named themes of an account,
-- at most one active), render signing keys (used when BODYGRAPH_RENDER_KEYS is not set;
-- the newest signs, all verify) and an index for the sweep of stale reservations. The
-- template's name is stored as "label" (no bookkeeping column is called *name*).
CREATE TABLE render_templates (
    id TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    label TEXT NOT NULL,
    theme TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    created_us INTEGER NOT NULL
);
CREATE INDEX render_templates_account ON render_templates (account_id);
CREATE UNIQUE INDEX render_templates_one_active
    ON render_templates (account_id) WHERE active = 1;
CREATE TABLE render_keys (
    kid TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    created_us INTEGER NOT NULL
);
CREATE INDEX usage_log_reserved
    ON usage_log (created_us) WHERE status = 'reserved';
