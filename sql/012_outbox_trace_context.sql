-- W3C trace context (https://www.w3.org/TR/trace-context/) carried with each event: the writer
-- library stores the traceparent / tracestate of the request that wrote the event, the relay
-- sends them as the Kafka headers of the same names (kafka.trace_context, on by default), the
-- consumer library hands them to its handler and logs the trace id.
--
-- NULL (the default) means "no trace context": writers that insert the seed's column list are
-- unaffected, and the relay omits both headers. ASCII: the W3C format allows nothing else.
-- traceparent version 00 is 55 characters; the room above is for later versions, which may
-- append fields. tracestate: the specification's 512-character propagation limit.
ALTER TABLE outbox_event
    ADD COLUMN traceparent VARCHAR(256) CHARACTER SET ascii COLLATE ascii_bin NULL DEFAULT NULL,
    ADD COLUMN tracestate VARCHAR(512) CHARACTER SET ascii COLLATE ascii_bin NULL DEFAULT NULL;
