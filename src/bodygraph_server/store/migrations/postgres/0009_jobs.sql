-- bodygraph bookkeeping, schema 9 (PostgreSQL): the asynchronous jobs (POST /v2/jobs,
-- docs/jobs.md). A job holds its accepted input in chunks (zlib-compressed CSV, so a
-- restart loses nothing), each chunk's state and result; its credits are usage rows of
-- status 'job' with ids from usage_lo to usage_hi: as each chunk is committed, as many are
-- committed from commit_next up as its rows succeeded, as many released from
-- release_last down as failed; when the job ends the rest are released (settled).
-- result_url: where its result is downloaded (in the webhook announcing its end).
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    header TEXT NOT NULL,
    status TEXT NOT NULL,
    total BIGINT NOT NULL,
    done BIGINT NOT NULL DEFAULT 0,
    failed BIGINT NOT NULL DEFAULT 0,
    chunks BIGINT NOT NULL,
    chunks_done BIGINT NOT NULL DEFAULT 0,
    callback_url TEXT,
    result_url TEXT,
    key_hash TEXT UNIQUE,
    request_hash TEXT,
    usage_lo BIGINT NOT NULL,
    usage_hi BIGINT NOT NULL,
    commit_next BIGINT NOT NULL,
    release_last BIGINT NOT NULL,
    settled BIGINT NOT NULL DEFAULT 0,
    created_us BIGINT NOT NULL,
    started_us BIGINT,
    finished_us BIGINT,
    expires_us BIGINT,
    expired BIGINT NOT NULL DEFAULT 0,
    notified_us BIGINT
);
CREATE INDEX jobs_account ON jobs (account_id, created_us);
CREATE INDEX jobs_expires ON jobs (expires_us);
CREATE TABLE job_chunks (
    job_id TEXT NOT NULL REFERENCES jobs (id),
    seq INTEGER NOT NULL,
    first_row BIGINT NOT NULL,
    rows INTEGER NOT NULL,
    state TEXT NOT NULL,
    queued_us BIGINT NOT NULL,
    input BYTEA,
    output BYTEA,
    succeeded BIGINT NOT NULL DEFAULT 0,
    failed BIGINT NOT NULL DEFAULT 0,
    lease_us BIGINT,
    token TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, seq)
);
CREATE INDEX job_chunks_claim ON job_chunks (state, queued_us);
