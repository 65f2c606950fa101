-- Operator pauses (outboxctl pause / resume / paused): a topic, or an aggregate type, whose
-- events every relay using this database holds back until it is resumed, while the other
-- topics keep flowing. Held in the database so that every relay of a fleet obeys it (each reads
-- this table once a second) and a restart keeps it.
--
-- A relay that claims an event of a paused topic does not send it: the row becomes RETRY with
-- no recheck (next_attempt_at NULL), its attempts unchanged, and a last_error that names the
-- pause ("paused by operator: topic outbox.BILLING: <reason> (...)"). outboxctl resume deletes
-- the row here and wakes the held events; every relay also wakes, when it sees a pause end and
-- when it starts, the held events of pauses that no longer exist.
--
-- kind: 'topic' (name is a Kafka topic as the relay routes to it) or 'aggregate_type' (name is
-- an aggregate_type value, compared byte for byte). 249: Kafka's longest topic name.
CREATE TABLE outbox_pause (
    kind      VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    name      VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    reason    VARCHAR(512) NOT NULL DEFAULT '',
    paused_by VARCHAR(255) NOT NULL,
    paused_at TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (kind, name)
) ENGINE = InnoDB;
