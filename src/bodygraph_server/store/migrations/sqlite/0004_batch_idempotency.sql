-- bodygraph bookkeeping, schema 4 (SQLite): the Idempotency-Key of POST /v2/charts/batch.
-- A batch's key is linked to its first reservation (NULL when the batch had no valid
-- birth and so no reservation) and, once answered, records how many charts it charged
-- ("charged"; NULL for the other endpoints and for a batch still running). SQLite cannot
-- drop a NOT NULL constraint: the table is rebuilt.
CREATE TABLE idempotency_keys_new (
    key_hash TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    usage_id INTEGER REFERENCES usage_log (id),
    created_us INTEGER NOT NULL,
    charged INTEGER
);
INSERT INTO idempotency_keys_new (key_hash, request_hash, usage_id, created_us)
    SELECT key_hash, request_hash, usage_id, created_us FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_new RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_us);
