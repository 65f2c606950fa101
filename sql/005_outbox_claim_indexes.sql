-- Indexes that serve the relay's claim queries in the order they read, so a claim costs
-- O(batch) whatever the backlog:
--   pending scan:  WHERE status = 'PENDING' ORDER BY created_at, event_id LIMIT n
--                  -> idx_outbox_pending, read in index order, no sort.
--   expired scan:  WHERE status = 'PUBLISHING' AND lease_until < now ORDER BY lease_until LIMIT n
--                  -> idx_outbox_lease, a range over expired leases only.
-- The seed's single query (PENDING OR expired, ORDER BY created_at) cannot use any index for
-- its ORDER BY and sorts the whole backlog on every poll; its index idx_outbox_claim serves
-- neither scan above and only costs writes, so it is dropped.
--
-- published_by records which claim (lease owner token) marked the row PUBLISHED: the trace of
-- who published an event, and how the relay tells "my mark" from "lost my lease" after a
-- batch mark changed fewer rows than it asked for. NULL default: seed writers are unaffected.
ALTER TABLE outbox_event
    ADD COLUMN published_by VARCHAR(128) NULL DEFAULT NULL AFTER published_at,
    ADD KEY idx_outbox_pending (status, created_at, event_id),
    ADD KEY idx_outbox_lease (status, lease_until),
    DROP KEY idx_outbox_claim;
