-- notification-planner records the trace id (the 32 hex digits of the event's traceparent
-- header) of the event that planned each job, so a job can be followed back to the request
-- that wrote its order. NULL: the event carried no trace context.
ALTER TABLE notification_job
    ADD COLUMN trace_id CHAR(32) CHARACTER SET ascii COLLATE ascii_bin NULL DEFAULT NULL;
