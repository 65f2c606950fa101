-- Failure policy and per-aggregate ordering.
--
-- attempts / next_attempt_at / last_error: a failed publish increments attempts and, while
-- attempts < relay.max_attempts, parks the row as RETRY until next_attempt_at (exponential
-- backoff with jitter, database clock); then it becomes FAILED with last_error. Statuses:
--   PENDING -> PUBLISHING -> PUBLISHED
--      |          |-> RETRY (back off) -> PUBLISHING ...
--      |          |-> FAILED (permanent error, or attempts exhausted) -> requeue: PENDING
--      |                                                             -> skip: SKIPPED
--      |-> BLOCKED (per_aggregate ordering: an older event of the same aggregate is still
--                   unpublished) -> PENDING once that event is PUBLISHED or SKIPPED
-- next_attempt_at is "the earliest time this row may be looked at again": the end of a RETRY
-- row's backoff; for a PUBLISHING row the end of its lease (set together with lease_until),
-- after which another relay takes it over; for a BLOCKED row its safety-net recheck. One
-- index, idx_outbox_due, thus serves every "due" scan in the order it reads; it replaces
-- idx_outbox_lease. RETRY and BLOCKED rows leave idx_outbox_pending's PENDING range, so piles
-- of backing-off or waiting rows never slow the pending scan: a claim reads O(batch) rows.
--
-- unpublished (generated: 1 until the row is PUBLISHED or SKIPPED) and idx_outbox_aggregate
-- serve the ordering checks: the first entry of (aggregate_type, aggregate_id, unpublished = 1)
-- is the aggregate's oldest event still to publish, so "is an older event of this aggregate
-- unpublished?" and "which event of this aggregate is next?" are each one index entry, never
-- a walk over the aggregate's history or queue. The key does not change while an event moves
-- between unpublished statuses (PENDING, PUBLISHING, RETRY, BLOCKED, FAILED), so claims never
-- rewrite this index; only the final transition does. Writers are unaffected: a generated
-- column is computed, never inserted.
--
-- Upgrade: stop the relays, apply, start the new version (older relays do not set
-- next_attempt_at on claim).
ALTER TABLE outbox_event
    ADD COLUMN attempts INT NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at TIMESTAMP(6) NULL DEFAULT NULL,
    ADD COLUMN last_error VARCHAR(1024) NULL DEFAULT NULL,
    ADD COLUMN unpublished TINYINT AS (status NOT IN ('PUBLISHED', 'SKIPPED')) STORED,
    ADD KEY idx_outbox_due (status, next_attempt_at),
    ADD KEY idx_outbox_aggregate (aggregate_type, aggregate_id, unpublished, event_version,
                                  created_at, event_id),
    DROP KEY idx_outbox_lease;

UPDATE outbox_event SET next_attempt_at = lease_until WHERE status = 'PUBLISHING';
