ALTER TABLE playbook_versions DROP COLUMN IF EXISTS person_name;
ALTER TABLE playbook_proposals DROP COLUMN IF EXISTS decided_by, DROP COLUMN IF EXISTS person_name;
DROP INDEX IF EXISTS tool_calls_person_idx;
ALTER TABLE tool_calls DROP COLUMN IF EXISTS person_name, DROP COLUMN IF EXISTS person_id;
