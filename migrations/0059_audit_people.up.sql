-- The audit trail names the person (issue 26): every tool call, proposal, review and playbook
-- version says whose token did it. Names are kept beside ids, so the trail still reads after a
-- person is removed. Entries from before people belong to the tokens' person (the first admin).
ALTER TABLE tool_calls ADD COLUMN person_id uuid, ADD COLUMN person_name text NOT NULL DEFAULT '';
UPDATE tool_calls c SET person_id = t.person_id, person_name = p.name
    FROM tokens t JOIN people p ON p.id = t.person_id WHERE t.id = c.token_id;
CREATE INDEX tool_calls_person_idx ON tool_calls (person_id, id);

ALTER TABLE playbook_proposals
    ADD COLUMN person_name text NOT NULL DEFAULT '',
    ADD COLUMN decided_by text NOT NULL DEFAULT '';
UPDATE playbook_proposals x SET person_name = p.name
    FROM tokens t JOIN people p ON p.id = t.person_id WHERE t.id::text = x.token_id;

ALTER TABLE playbook_versions ADD COLUMN person_name text NOT NULL DEFAULT '';
