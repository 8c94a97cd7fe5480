-- Personal credentials for a shared service (issue 26): a credential, or a service, can say
-- "each person brings their own". A call then presents the calling person's own secret, kept
-- here sealed (bound to credential_person_secrets/<credential>/<person>/secret), never another
-- person's and never the credential's shared one.
ALTER TABLE credentials ADD COLUMN personal boolean NOT NULL DEFAULT false;
ALTER TABLE services ADD COLUMN personal boolean NOT NULL DEFAULT false;

CREATE TABLE credential_person_secrets (
    credential_id  text        NOT NULL REFERENCES credentials (id) ON DELETE CASCADE ON UPDATE CASCADE,
    person_id      uuid        NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    sealed_secret  bytea       NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (credential_id, person_id)
);
CREATE INDEX credential_person_secrets_person_id_idx ON credential_person_secrets (person_id);

-- A person's secret is part of the targets replicas cache: announce its change as a change of
-- the credential.
CREATE FUNCTION agent_deck_notify_person_secret() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    PERFORM pg_notify('agent_deck_changes', 'credentials:' || r.credential_id);
    RETURN NULL;
END $$;
CREATE TRIGGER credential_person_secrets_notify AFTER INSERT OR UPDATE OR DELETE ON credential_person_secrets
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_person_secret();
