-- bodygraph bookkeeping, schema 9 (SQLite): the asynchronous jobs (POST /v2/jobs,
-- docs/jobs.md). A job holds its accepted input in chunks (zlib-compressed CSV, so a
-- restart loses nothing), each chunk's state and result; its credits are usage rows of
-- status 'job' with ids from usage_lo to usage_hi: as each chunk is committed, as many are
-- committed from commit_next up as its rows succeeded, as many released from
-- release_last down as failed; when the job ends the rest are released (settled).
-- result_url: where its result is downloaded (in the webhook announcing its end).
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    header TEXT NOT NULL,
    status TEXT NOT NULL,
    total INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL,
    chunks_done INTEGER NOT NULL DEFAULT 0,
    callback_url TEXT,
    result_url TEXT,
    key_hash TEXT UNIQUE,
    request_hash TEXT,
    usage_lo INTEGER NOT NULL,
    usage_hi INTEGER NOT NULL,
    commit_next INTEGER NOT NULL,
    release_last INTEGER NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0,
    created_us INTEGER NOT NULL,
    started_us INTEGER,
    finished_us INTEGER,
    expires_us INTEGER,
    expired INTEGER NOT NULL DEFAULT 0,
    notified_us INTEGER
);
CREATE INDEX jobs_account ON jobs (account_id, created_us);
CREATE INDEX jobs_expires ON jobs (expires_us);
CREATE TABLE job_chunks (
    job_id TEXT NOT NULL REFERENCES jobs (id),
    seq INTEGER NOT NULL,
    first_row INTEGER NOT NULL,
    rows INTEGER NOT NULL,
    state TEXT NOT NULL,
    queued_us INTEGER NOT NULL,
    input BLOB,
    output BLOB,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    lease_us INTEGER,
    token TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, seq)
);
CREATE INDEX job_chunks_claim ON job_chunks (state, queued_us);
