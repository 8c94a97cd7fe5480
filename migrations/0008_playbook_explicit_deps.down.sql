ALTER TABLE playbooks
    DROP COLUMN explicit_credential_ids,
    DROP COLUMN explicit_service_ids;
