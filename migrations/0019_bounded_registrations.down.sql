DROP INDEX IF EXISTS playbook_proposals_open_token_idx;
DROP INDEX IF EXISTS feedback_signals_open_token_idx;
ALTER TABLE feedback_signals DROP COLUMN token_id;
DROP INDEX IF EXISTS oauth_clients_unused_idx;
ALTER TABLE oauth_clients DROP COLUMN signed_in_at;
