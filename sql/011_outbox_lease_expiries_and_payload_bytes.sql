-- Rows that can never be settled, and memory bounded in bytes.
--
-- lease_expiries: how often a claim of this row ended with its lease expired, unsettled (the
-- relay died, stalled, or could not even record a failure). A claim that takes over an expired
-- lease counts it; after relay.max_lease_expiries the row is parked as FAILED with the reason
-- instead of being claimed again, so a row that crashes or wedges every relay that takes it
-- cannot loop once per lease forever. Outages release rows (no expiry), so they count nothing.
--
-- payload_bytes (generated, stored: computed on INSERT, so writers are unaffected): the claim
-- scans read the payload's size without reading the payload, choose the rows that fit the
-- relay's byte budget (relay.max_in_flight_bytes), and fetch only the payloads of the rows they
-- lease. Parked rows are never fetched with their payload. LENGTH() counts bytes.
--
-- Upgrade: stop the relays, apply (the table is rebuilt once for the stored column), start the
-- new version.
ALTER TABLE outbox_event
    ADD COLUMN lease_expiries INT NOT NULL DEFAULT 0,
    ADD COLUMN payload_bytes BIGINT AS (LENGTH(payload)) STORED;
