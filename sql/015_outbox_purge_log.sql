-- What outboxctl purge deleted, so that a later outboxctl replay of a time window can say how
-- many of the window's events it could not send again: once a row is purged nothing else
-- records that it existed. One row per hour of the events' created_at and per
-- (aggregate_type, event_type), counting the PUBLISHED events purged; the batch that deletes
-- them adds to the count in the same transaction, so a count never includes an event that is
-- still there, nor misses one that is gone. SKIPPED events are not counted: they were never
-- published, so a replay has nothing of theirs to miss.
--
-- created_hour: created_at truncated to the hour, in UTC (every session of the relay and of
-- outboxctl runs in UTC). aggregate_type and event_type are as long as outbox_event's, and
-- compared byte for byte (utf8mb4_bin): the relay routes ORDER and Order to two topics, so
-- their counts must not merge as a case-insensitive key would.
CREATE TABLE outbox_purge_log (
    created_hour   DATETIME NOT NULL,
    aggregate_type VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    event_type     VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    purged_events  BIGINT NOT NULL,
    PRIMARY KEY (created_hour, aggregate_type, event_type)
) ENGINE = InnoDB;
