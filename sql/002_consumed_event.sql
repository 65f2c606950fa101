-- The seed's consumer dedupe table: one row per (consumer, event) that took effect.
-- The constraint name is part of the contract: the consumer treats error 1062 as
-- "already consumed" only when it names uq_consumed_event_identity.
CREATE TABLE consumed_event (
    id            BIGINT NOT NULL AUTO_INCREMENT,
    consumer_name VARCHAR(128) NOT NULL,
    event_id      CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    consumed_at   TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uq_consumed_event_identity UNIQUE (consumer_name, event_id)
) ENGINE = InnoDB;
