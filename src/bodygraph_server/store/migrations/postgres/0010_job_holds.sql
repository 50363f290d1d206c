-- bodygraph bookkeeping, schema 10: a job's credits held per chunk, not per row
-- (docs/jobs.md). A usage row stands for `calls` calls (1 but for a job's), each charged
-- `credits` (0 or 1): the credits charged are SUM(credits * calls). Each chunk of a job
-- holds one row of status 'job' for its credited rows (held_id) and one for its overage
-- rows (held_overage_id); committing the chunk commits them for its successful rows and
-- releases them for its failed ones.
ALTER TABLE usage_log ADD COLUMN calls INTEGER NOT NULL DEFAULT 1;
ALTER TABLE job_chunks ADD COLUMN held_id BIGINT;
ALTER TABLE job_chunks ADD COLUMN held_overage_id BIGINT;
