-- bodygraph bookkeeping, schema 4 (PostgreSQL): the Idempotency-Key of POST
-- /v2/charts/batch. A batch's key is linked to its first reservation (NULL when the batch
-- had no valid birth and so no reservation) and, once answered, records how many charts
-- it charged ("charged"; NULL for the other endpoints and for a batch still running).
ALTER TABLE idempotency_keys ALTER COLUMN usage_id DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN charged INTEGER;
