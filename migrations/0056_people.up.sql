-- People (issue 26). A person has a name, a role (admin: everything; member: their own decks and
-- cards and those shared with them, no server settings) and tokens of their own: every token
-- acts for the person it belongs to. An e-mail or OpenID Connect subject maps a dashboard
-- sign-in to a person. A removed person keeps their row (the audit trail and their decks name
-- them) but no token of theirs works and no live row holds their name.
CREATE TABLE people (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name          text        NOT NULL CONSTRAINT people_name_check CHECK (btrim(name) <> ''),
    role          text        NOT NULL CONSTRAINT people_role_check CHECK (role IN ('admin', 'member')),
    email         text        NOT NULL DEFAULT '',
    oidc_subject  text        NOT NULL DEFAULT '',
    -- The admin of the first start: one per database, whichever replica migrated it.
    founder       boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    removed_at    timestamptz
);
CREATE UNIQUE INDEX people_name_key ON people (lower(name)) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX people_email_key ON people (lower(email)) WHERE email <> '' AND removed_at IS NULL;
CREATE UNIQUE INDEX people_oidc_subject_key ON people (oidc_subject) WHERE oidc_subject <> '' AND removed_at IS NULL;
CREATE UNIQUE INDEX people_founder_key ON people (founder) WHERE founder;

-- The migrations run under an advisory lock, so this row is made once per cluster however many
-- replicas start at once; an install from before people gets its admin here too.
INSERT INTO people (name, role, founder) VALUES ('admin', 'admin', true);

-- Every token belongs to a person; the tokens of an install from before people belong to its
-- first admin. Updating person_id announces nothing: the notify trigger watches other columns.
ALTER TABLE tokens ADD COLUMN person_id uuid REFERENCES people (id);
UPDATE tokens SET person_id = (SELECT id FROM people WHERE founder);
ALTER TABLE tokens ALTER COLUMN person_id SET NOT NULL;
CREATE INDEX tokens_person_id_idx ON tokens (person_id);

-- A one-time sign-in code signs in the person it was made for (an admin may make one for anyone).
ALTER TABLE dashboard_signin_codes ADD COLUMN person_id uuid REFERENCES people (id) ON DELETE CASCADE;
-- An OAuth grant belongs to the person who consented.
ALTER TABLE oauth_codes ADD COLUMN person_id uuid REFERENCES people (id) ON DELETE CASCADE;

-- Every replica drops what it cached about a person (tokens act with the person's role) when the
-- row changes: a removal, a new role.
CREATE TRIGGER people_notify AFTER INSERT OR UPDATE OR DELETE ON people
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
