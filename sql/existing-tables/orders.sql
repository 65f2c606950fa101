-- For services that already have an orders table (not applied by the migration runner):
-- the seed's change that stores the entry idempotency key and the accepted event's id.
-- Backfill request_id / acceptance_event_id for existing rows before adding NOT NULL
-- constraints on a live table; test the online-DDL path on your MySQL version first.
ALTER TABLE orders
    ADD COLUMN request_id VARCHAR(128) NOT NULL,
    ADD COLUMN acceptance_event_id CHAR(36)
        CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    ADD CONSTRAINT uq_orders_tenant_request UNIQUE (tenant_id, request_id),
    ADD CONSTRAINT uq_orders_acceptance_event UNIQUE (acceptance_event_id);
