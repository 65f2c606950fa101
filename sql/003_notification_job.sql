-- The seed's example local effect of the notification-planner consumer.
CREATE TABLE notification_job (
    event_id       CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    order_id       BIGINT NOT NULL,
    source_version BIGINT NOT NULL,
    status         VARCHAR(16) NOT NULL,
    created_at     TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (event_id)
) ENGINE = InnoDB;
