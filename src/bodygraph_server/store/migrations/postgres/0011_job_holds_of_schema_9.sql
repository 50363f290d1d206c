-- bodygraph bookkeeping, schema 11: the holds of a job that was running under schema 9
-- (one usage row of status 'job' a row, those still held numbered commit_next up to
-- release_last, credited ones first) become the holds of schema 10: each chunk not done
-- takes as many of them as it has rows, in the order of its seq, and they become one
-- usage row for its credited rows (held_id) and one for its overage rows
-- (held_overage_id), standing for as many calls (usage_log.calls); the others are
-- deleted (held rows are referenced nowhere else). Then jobs.commit_next and
-- jobs.release_last, read by no code since schema 10, are dropped. A database without
-- such a job changes only by the dropped columns.
CREATE TEMPORARY TABLE job_holds_9 AS
WITH undone AS (
    SELECT c.job_id, c.seq, c.rows,
           SUM(c.rows) OVER (PARTITION BY c.job_id ORDER BY c.seq) - c.rows AS before_rows
    FROM job_chunks c JOIN jobs j ON j.id = c.job_id
    WHERE j.status IN ('queued', 'running') AND c.state IN ('queued', 'running')
      AND c.held_id IS NULL AND c.held_overage_id IS NULL
), held AS (
    SELECT u.id, u.credits, j.id AS job_id,
           ROW_NUMBER() OVER (PARTITION BY j.id ORDER BY u.id) AS place
    FROM jobs j JOIN usage_log u ON u.account_id = j.account_id AND u.status = 'job'
         AND u.id BETWEEN j.commit_next AND j.release_last
    WHERE j.status IN ('queued', 'running')
      AND j.id IN (SELECT job_id FROM undone)
)
SELECT h.id, h.credits, d.job_id, d.seq
FROM held h JOIN undone d ON d.job_id = h.job_id
     AND h.place > d.before_rows AND h.place <= d.before_rows + d.rows;
CREATE TEMPORARY TABLE job_holds_9_kept AS
SELECT job_id, seq, credits, MIN(id) AS id, COUNT(*) AS calls
FROM job_holds_9 GROUP BY job_id, seq, credits;
UPDATE usage_log SET calls = (SELECT k.calls FROM job_holds_9_kept k WHERE k.id = usage_log.id)
WHERE id IN (SELECT id FROM job_holds_9_kept);
DELETE FROM usage_log
WHERE id IN (SELECT id FROM job_holds_9) AND id NOT IN (SELECT id FROM job_holds_9_kept);
UPDATE job_chunks SET
    held_id = (SELECT k.id FROM job_holds_9_kept k WHERE k.job_id = job_chunks.job_id
               AND k.seq = job_chunks.seq AND k.credits = 1),
    held_overage_id = (SELECT k.id FROM job_holds_9_kept k WHERE k.job_id = job_chunks.job_id
                       AND k.seq = job_chunks.seq AND k.credits = 0)
WHERE EXISTS (SELECT 1 FROM job_holds_9_kept k WHERE k.job_id = job_chunks.job_id
              AND k.seq = job_chunks.seq);
DROP TABLE job_holds_9_kept;
DROP TABLE job_holds_9;
ALTER TABLE jobs DROP COLUMN commit_next;
ALTER TABLE jobs DROP COLUMN release_last;
