-- A person's own sign-in to a service that takes each person's own (issue 26): where a service
-- (or its credential) says "each person brings their own", each person signs in with their own
-- downstream account, and a call sends the calling person's tokens, never another's. One row
-- per (service, person), shaped like service_oauth; the sealed columns are bound to
-- service_person_oauth/<service id>/<person id>/<column>. Shared services keep their one row in
-- service_oauth.
CREATE TABLE service_person_oauth (
    service_id      uuid        NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    person_id       uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    state           text        NOT NULL DEFAULT 'needs_sign_in'
                    CONSTRAINT service_person_oauth_state_check CHECK (state IN ('connected', 'needs_sign_in', 'error')),
    sealed_client   bytea,
    sealed_token    bytea,
    sealed_pending  bytea,
    pending_state   text        NOT NULL DEFAULT '',
    pending_until   timestamptz,
    expires_at      timestamptz,
    scopes          text[]      NOT NULL DEFAULT '{}',
    last_error      text        NOT NULL DEFAULT '',
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, person_id)
);

CREATE INDEX service_person_oauth_pending_state_idx ON service_person_oauth (pending_state) WHERE pending_state <> '';
CREATE INDEX service_person_oauth_person_id_idx ON service_person_oauth (person_id);

-- Like the service's own sign-in, a person's is part of the targets replicas cache.
CREATE TRIGGER service_person_oauth_notify AFTER INSERT OR UPDATE OR DELETE ON service_person_oauth
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_service_oauth();
