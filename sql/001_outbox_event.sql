-- The seed's outbox table, as a writer that already follows the seed creates it.
-- Writers insert (event_id, aggregate_type, aggregate_id, event_type, event_version, payload,
-- status='PENDING', created_at); every column added by later migrations has a default, so
-- that statement keeps working unchanged.
CREATE TABLE outbox_event (
    event_id       CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    aggregate_type VARCHAR(64) NOT NULL,
    aggregate_id   VARCHAR(128) NOT NULL,
    event_type     VARCHAR(128) NOT NULL,
    event_version  BIGINT NOT NULL,
    payload        JSON NOT NULL,
    status         VARCHAR(16) NOT NULL,
    lease_owner    VARCHAR(128) NULL,
    lease_until    TIMESTAMP(6) NULL,
    created_at     TIMESTAMP(6) NOT NULL,
    published_at   TIMESTAMP(6) NULL,
    PRIMARY KEY (event_id),
    KEY idx_outbox_claim (status, lease_until, created_at)
) ENGINE = InnoDB;
