-- Sign-in to remote services that require the MCP authorization flow (OAuth 2.1). One row per
-- service that has started a sign-in. The client registration (id, secret, auth method), the
-- token set and a sign-in in progress are each sealed JSON, bound to this table, the service id
-- and the column like every other secret; only what the surfaces show is in clear.
CREATE TABLE service_oauth (
    service_id      uuid        PRIMARY KEY REFERENCES services (id) ON DELETE CASCADE,
    state           text        NOT NULL DEFAULT 'needs_sign_in'
                    CONSTRAINT service_oauth_state_check CHECK (state IN ('connected', 'needs_sign_in', 'error')),
    sealed_client   bytea,
    sealed_token    bytea,
    sealed_pending  bytea,
    -- sha256 (hex) of the pending sign-in's state parameter: the callback finds its row by it.
    pending_state   text        NOT NULL DEFAULT '',
    pending_until   timestamptz,
    expires_at      timestamptz,
    scopes          text[]      NOT NULL DEFAULT '{}',
    -- A short reason for state error, never a secret nor a server's text.
    last_error      text        NOT NULL DEFAULT '',
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX service_oauth_pending_state_idx ON service_oauth (pending_state) WHERE pending_state <> '';

-- A sign-in changes the service's target (its bearer token): announce it as a change of the
-- service, so every replica drops its cached target.
CREATE FUNCTION agent_deck_notify_service_oauth() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    PERFORM pg_notify('agent_deck_changes', 'services:' || r.service_id::text);
    RETURN NULL;
END $$;

CREATE TRIGGER service_oauth_notify AFTER INSERT OR UPDATE OR DELETE ON service_oauth
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_service_oauth();
