-- Retention (outboxctl purge) finds consumed_event rows older than retention.consumed_after
-- along this index, a slice at a time in (consumed_at, id) order, and deletes them by primary
-- key: each batch reads only the rows it deletes, however large the table. Without it every
-- batch would scan the table.
--
-- outbox_event needs no new index: purge walks PUBLISHED and SKIPPED rows along
-- idx_outbox_pending (status, created_at, event_id), whose status prefix confines it to the
-- rows of one status, and checks published_at on the rows it steps over (an event is published
-- after it is created, so created_at < cutoff holds for every row old enough to go).
ALTER TABLE consumed_event
    ADD KEY idx_consumed_event_consumed_at (consumed_at);
