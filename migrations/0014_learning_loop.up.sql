-- The learning loop: agents propose playbook changes and record feedback signals; people
-- review them. Proposals keep their structured ops (not a new body) so an accept re-applies
-- them to the body as it is then; new_playbook holds a create's content.
CREATE TABLE playbook_proposals (
    id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    status         text        NOT NULL DEFAULT 'open' CONSTRAINT playbook_proposals_status_check
                               CHECK (status IN ('open', 'accepted', 'rejected', 'stale', 'superseded')),
    kind           text        NOT NULL CONSTRAINT playbook_proposals_kind_check
                               CHECK (kind IN ('update', 'create', 'retire')),
    -- The playbook changed or retired; for a create, the playbook made by its accept.
    playbook_id    text        REFERENCES playbooks (id) ON DELETE CASCADE ON UPDATE CASCADE,
    deck_id        uuid        REFERENCES decks (id) ON DELETE SET NULL,
    ops            jsonb       NOT NULL DEFAULT '[]',
    new_playbook   jsonb,
    rationale      text        NOT NULL CONSTRAINT playbook_proposals_rationale_check CHECK (btrim(rationale) <> ''),
    evidence       jsonb       NOT NULL DEFAULT '{}',
    supersedes     uuid[]      NOT NULL DEFAULT '{}',
    superseded_by  uuid,
    session_id     text        NOT NULL DEFAULT '',
    client_name    text        NOT NULL DEFAULT '',
    token_id       text        NOT NULL DEFAULT '',
    reason         text        NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    decided_at     timestamptz
);
CREATE INDEX playbook_proposals_playbook_idx ON playbook_proposals (playbook_id, created_at);
CREATE INDEX playbook_proposals_status_idx ON playbook_proposals (status, created_at);

-- A correction an agent recorded that is not yet generalizable. A proposal naming it parks
-- it; accepting that proposal marks it actioned; rejecting it or a stale accept reopens it.
CREATE TABLE feedback_signals (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    status       text        NOT NULL DEFAULT 'open' CONSTRAINT feedback_signals_status_check
                             CHECK (status IN ('open', 'parked', 'actioned', 'discarded')),
    playbook_id  text        REFERENCES playbooks (id) ON DELETE SET NULL ON UPDATE CASCADE,
    deck_id      uuid        REFERENCES decks (id) ON DELETE SET NULL,
    proposal_id  uuid        REFERENCES playbook_proposals (id) ON DELETE SET NULL,
    rationale    text        NOT NULL CONSTRAINT feedback_signals_rationale_check CHECK (btrim(rationale) <> ''),
    evidence     jsonb       NOT NULL DEFAULT '{}',
    session_id   text        NOT NULL DEFAULT '',
    client_name  text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_signals_status_idx ON feedback_signals (status, created_at);

-- One row per get_playbook: which playbooks agents use and which never trigger. Pruned after
-- the retention period (serve --playbook-fetch-retention).
CREATE TABLE playbook_fetches (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    playbook_id  text        NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE ON UPDATE CASCADE,
    session_id   text        NOT NULL DEFAULT '',
    client_name  text        NOT NULL DEFAULT '',
    fetched_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playbook_fetches_time_idx ON playbook_fetches (fetched_at);
CREATE INDEX playbook_fetches_playbook_idx ON playbook_fetches (playbook_id, fetched_at);

-- The proposal whose accept wrote a version (none for direct edits).
ALTER TABLE playbook_versions ADD COLUMN proposal_id uuid;
