-- Least privilege for every account that touches the outbox: each may run exactly the
-- statements its program runs, on the tables it runs them on, and nothing else.
--
-- Replace `app` with your schema, each 'change-me' with a real password (or IDENTIFIED WITH an
-- authentication plugin), and '%' with the hosts each account connects from. Valid on MySQL
-- 8.0+ and MariaDB 10.6+. tests/integration/mysql_grants_test.cpp runs this file (schema and
-- account names replaced) and the programs as these accounts.

-- The relay: claims (SELECT ... FOR UPDATE SKIP LOCKED, which needs UPDATE as well as SELECT),
-- leases, marks, releases, records failures, parks and wakes rows. It never inserts or
-- deletes a row; the only other table it reads is outbox_pause (the operator's pauses).
CREATE USER IF NOT EXISTS 'outbox_relay'@'%' IDENTIFIED BY 'change-me';
GRANT SELECT, UPDATE ON `app`.`outbox_event` TO 'outbox_relay'@'%';
GRANT SELECT ON `app`.`outbox_pause` TO 'outbox_relay'@'%';
-- Optional: lets the relay's sessions log MINIMAL row images without the statements' text
-- (relay.binlog_row_image), about a tenth of the binary log its updates write otherwise.
-- Without it the relay keeps the server's settings and says so once at start. One of, by
-- server (the privilege names differ):
--   MySQL:   GRANT SESSION_VARIABLES_ADMIN ON *.* TO 'outbox_relay'@'%';
--   MariaDB: GRANT BINLOG ADMIN ON *.* TO 'outbox_relay'@'%';  (also lets it purge binary logs)

-- The writer (the application): inserts each order and its outbox_event row in one
-- transaction, and reads orders back by (tenant_id, request_id) to reconcile an unknown
-- commit. It never updates or deletes an event.
CREATE USER IF NOT EXISTS 'outbox_writer'@'%' IDENTIFIED BY 'change-me';
GRANT SELECT, INSERT ON `app`.`orders` TO 'outbox_writer'@'%';
GRANT SELECT, INSERT ON `app`.`outbox_event` TO 'outbox_writer'@'%';

-- The consumer (notification-planner): records consumed_event (its unique key is the dedupe)
-- and its local effect, notification_job, in one transaction. It never sees outbox_event.
CREATE USER IF NOT EXISTS 'outbox_consumer'@'%' IDENTIFIED BY 'change-me';
GRANT SELECT, INSERT ON `app`.`consumed_event` TO 'outbox_consumer'@'%';
GRANT INSERT ON `app`.`notification_job` TO 'outbox_consumer'@'%';

-- outboxctl and the retention timer (the config's outboxctl: account): reads every table it
-- reports on, UPDATEs outbox_event for requeue/skip (and to wake the events a resumed pause
-- held), DELETEs old rows for purge; INSERTs and DELETEs outbox_pause rows for pause/resume;
-- purge adds its counts to outbox_purge_log (INSERT ... ON DUPLICATE KEY UPDATE, whose update
-- reads the count: SELECT) and replay reads them. Nothing deletes from outbox_purge_log. These
-- two are the only tables it inserts into.
CREATE USER IF NOT EXISTS 'outbox_admin'@'%' IDENTIFIED BY 'change-me';
GRANT SELECT, UPDATE, DELETE ON `app`.`outbox_event` TO 'outbox_admin'@'%';
GRANT SELECT, DELETE ON `app`.`consumed_event` TO 'outbox_admin'@'%';
GRANT SELECT ON `app`.`orders` TO 'outbox_admin'@'%';
GRANT SELECT ON `app`.`notification_job` TO 'outbox_admin'@'%';
GRANT SELECT, INSERT, DELETE ON `app`.`outbox_pause` TO 'outbox_admin'@'%';
GRANT SELECT, INSERT, UPDATE ON `app`.`outbox_purge_log` TO 'outbox_admin'@'%';
