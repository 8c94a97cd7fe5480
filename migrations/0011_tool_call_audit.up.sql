-- The tool-call audit trail: one row per proxied call (REST and MCP), refusals after
-- authentication included. Rows keep names beside ids so the trail still reads after a token,
-- deck or service is deleted. Arguments are kept only for decks that turn on argument capture
-- (deck_audit_settings), already redacted; results and secrets are never kept.
CREATE TABLE tool_calls (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL,
    token_id      uuid,
    token_name    text        NOT NULL DEFAULT '',
    session_id    text        NOT NULL DEFAULT '',
    client_name   text        NOT NULL DEFAULT '',
    deck_id       uuid,
    deck_name     text        NOT NULL DEFAULT '',
    service_id    uuid,
    service_name  text        NOT NULL DEFAULT '',
    tool          text        NOT NULL DEFAULT '',
    duration_us   bigint      NOT NULL,
    outcome       text        NOT NULL CONSTRAINT tool_calls_outcome_check CHECK (outcome IN ('ok', 'is_error', 'error')),
    error_code    text        NOT NULL DEFAULT '',
    result_bytes  bigint      NOT NULL DEFAULT 0,
    arguments     jsonb
);

CREATE INDEX tool_calls_at_idx ON tool_calls (at);
CREATE INDEX tool_calls_service_idx ON tool_calls (service_name, id);
CREATE INDEX tool_calls_deck_idx ON tool_calls (deck_id, id);

-- Per-deck audit settings, kept apart from decks so turning capture on is not a deck change.
-- Entries are written after the call; capture_since keeps a call made before capture was
-- turned on from being captured by a write that comes after.
CREATE TABLE deck_audit_settings (
    deck_id            uuid        PRIMARY KEY REFERENCES decks (id) ON DELETE CASCADE,
    capture_arguments  boolean     NOT NULL DEFAULT false,
    capture_since      timestamptz
);
