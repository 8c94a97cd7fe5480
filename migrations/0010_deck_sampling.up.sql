-- Sampling grants. A downstream server asking the agent's model for a completion
-- (sampling/createMessage) spends the person's model and sees what it answers, so it is a
-- privilege: off for every service until an admin allows it on a deck. One row per (deck,
-- service) allowed; no row means not allowed. The grant stays when the service is unlinked and
-- linked again, and goes with the deck or the service.
CREATE TABLE deck_sampling (
    deck_id    uuid        NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    service_id uuid        NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    allowed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (deck_id, service_id)
);
CREATE INDEX deck_sampling_service_id_idx ON deck_sampling (service_id);
