-- Which playbook dependencies were given explicitly. depends_on_* stay the effective sets (what
-- deletes are checked against); explicit_* are the ids a person or agent named. On every change
-- the effective set is rebuilt as explicit ids plus those auto-detected in the new text, so a
-- detected id the text no longer mentions stops blocking a delete, while an explicit one stays
-- until it is removed explicitly.
--
-- Existing rows cannot tell which of their ids were explicit. The safe reading is that all of
-- them were: dependencies guard deletes, and dropping one wrongly would let a credential or
-- service a playbook needs be deleted, while keeping one wrongly costs a single explicit update
-- (send depends_on_credential_ids / depends_on_service_ids without it). After that update the
-- playbook follows the new rule.
ALTER TABLE playbooks
    ADD COLUMN explicit_credential_ids text[] NOT NULL DEFAULT '{}',
    ADD COLUMN explicit_service_ids    text[] NOT NULL DEFAULT '{}';

UPDATE playbooks
   SET explicit_credential_ids = depends_on_credential_ids,
       explicit_service_ids    = depends_on_service_ids;
