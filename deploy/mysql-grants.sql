-- Least privilege for the relay: it reads and updates outbox_event, nothing else.
-- Replace app with your schema and pick a password (or use an auth plugin).
CREATE USER IF NOT EXISTS 'outbox_relay'@'%' IDENTIFIED BY 'change-me';
GRANT SELECT, UPDATE ON app.outbox_event TO 'outbox_relay'@'%';
