-- Review that agents cannot skip: a deck may require that an agent token's playbook writes
-- (update_playbook, register_playbook, REST PATCH and restore) become proposals a person
-- accepts, instead of taking effect. No row: the server's default (serve --playbook-review).
CREATE TABLE deck_playbook_review (
    deck_id     uuid        PRIMARY KEY REFERENCES decks (id) ON DELETE CASCADE,
    required    boolean     NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- An agent's direct edit held for review: the fields it sets (title, body, triggers,
-- dependencies), applied to the playbook as it is when a person accepts. Proposals made with
-- propose_playbook_patch keep their ops instead.
ALTER TABLE playbook_proposals ADD COLUMN edit jsonb;
