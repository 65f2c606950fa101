#!/usr/bin/env python3
"""Decodes Kafka records with the CloudEvents Python SDK's Kafka binding (binary content mode).

Reads kcat's JSON output (kcat -C -J: one record per line) on stdin and prints one line per
record, separated by "|": id, specversion, source, type, time (microseconds since the epoch),
subject, datacontenttype, the aggregatetype and eventversion extensions, partitionkey (the
SDK's name for the record key), data.order_id and the traceparent extension ("-" when absent).
A record the SDK refuses ends the run with exit status 1, naming its partition and offset.
The decoding is the SDK's own (cloudevents.core.bindings.kafka.from_binary_event): the tests
compare its answers with the outbox rows, so that an independent implementation of the
binding judges what the relay sends.
"""
import datetime
import json
import sys

from cloudevents.core.bindings import kafka

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def text(value):
    return "-" if value is None else str(value)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        record = json.loads(line)
        names_values = record.get("headers") or []
        headers = {
            names_values[i]: (names_values[i + 1] or "").encode("utf-8")
            for i in range(0, len(names_values), 2)
        }
        key = record.get("key")
        message = kafka.KafkaMessage(
            headers=headers,
            key=None if key is None else key.encode("utf-8"),
            value=(record.get("payload") or "").encode("utf-8"),
        )
        where = f"partition {record.get('partition')} offset {record.get('offset')}"
        try:
            event = kafka.from_binary_event(message)
        except Exception as error:  # the SDK's refusal is the finding
            print(f"{where}: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        time = event.get_time()
        time_us = "-" if time is None else (time - EPOCH) // datetime.timedelta(microseconds=1)
        data = event.get_data()
        order_id = data.get("order_id") if isinstance(data, dict) else None
        fields = [
            event.get_id(),
            event.get_specversion(),
            event.get_source(),
            event.get_type(),
            time_us,
            event.get_subject(),
            event.get_datacontenttype(),
            event.get_extension("aggregatetype"),
            event.get_extension("eventversion"),
            event.get_extension("partitionkey"),
            order_id,
            event.get_extension("traceparent"),
        ]
        print("|".join(text(field) for field in fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())
