-- Rate limits on proxied calls: per token and per (deck, service), calls a minute and calls in
-- flight. The server's flags give the defaults; a row here overrides them for a deck's services
-- (service_id NULL), for a service on every deck (deck_id NULL) or for one service on one deck.
-- A NULL limit inherits; 0 means no limit.
CREATE TABLE rate_limit_settings (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deck_id           uuid        REFERENCES decks (id) ON DELETE CASCADE,
    service_id        uuid        REFERENCES services (id) ON DELETE CASCADE,
    calls_per_minute  integer     CONSTRAINT rate_limit_settings_calls_check CHECK (calls_per_minute >= 0),
    concurrent_calls  integer     CONSTRAINT rate_limit_settings_concurrent_check CHECK (concurrent_calls >= 0),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rate_limit_settings_subject_check CHECK (deck_id IS NOT NULL OR service_id IS NOT NULL)
);
CREATE UNIQUE INDEX rate_limit_settings_subject_idx ON rate_limit_settings (
    COALESCE(deck_id, '00000000-0000-0000-0000-000000000000'),
    COALESCE(service_id, '00000000-0000-0000-0000-000000000000'));

-- A call's plan (cached per replica) carries its limits: announce every change, so every
-- replica drops the plans built from it.
CREATE TRIGGER rate_limit_settings_notify AFTER INSERT OR UPDATE OR DELETE ON rate_limit_settings
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();

-- The buckets every replica shares (backend/ratelimit): a token bucket per key, refilled by
-- whoever touches it next, and each replica's calls in flight per key.
CREATE TABLE rate_buckets (
    key     text             PRIMARY KEY,
    tokens  double precision NOT NULL,
    at      timestamptz      NOT NULL
);
CREATE TABLE rate_inflight (
    key        text        NOT NULL,
    replica    text        NOT NULL,
    in_flight  integer     NOT NULL,
    seen_at    timestamptz NOT NULL,
    PRIMARY KEY (key, replica)
);
