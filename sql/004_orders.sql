-- A minimal orders table for the examples, the demo and the benchmarks. It carries the
-- columns the seed adds to an existing orders table (see existing-tables/orders.sql):
-- the entry idempotency key (tenant_id, request_id) and the accepted event's id.
CREATE TABLE orders (
    id                  BIGINT NOT NULL,
    tenant_id           BIGINT NOT NULL,
    request_id          VARCHAR(128) NOT NULL,
    acceptance_event_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    version             BIGINT NOT NULL,
    status              VARCHAR(16) NOT NULL,
    created_at          TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uq_orders_tenant_request UNIQUE (tenant_id, request_id),
    CONSTRAINT uq_orders_acceptance_event UNIQUE (acceptance_event_id)
) ENGINE = InnoDB;
