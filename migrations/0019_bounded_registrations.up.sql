-- Bounds on what anyone may leave behind. An OAuth client that never completes a sign-in
-- expires (it is pruned, and can no longer start one): signed_in_at is set when one of its
-- codes first becomes a grant. Clients registered before this migration count as signed in,
-- since their codes may be gone already.
ALTER TABLE oauth_clients ADD COLUMN signed_in_at timestamptz;
UPDATE oauth_clients SET signed_in_at = created_at;
CREATE INDEX oauth_clients_unused_idx ON oauth_clients (created_at) WHERE signed_in_at IS NULL;

-- Open proposals and open feedback signals are bounded per agent token: the token that
-- recorded a signal is kept, as it is for proposals.
ALTER TABLE feedback_signals ADD COLUMN token_id text NOT NULL DEFAULT '';
CREATE INDEX feedback_signals_open_token_idx ON feedback_signals (token_id) WHERE status = 'open';
CREATE INDEX playbook_proposals_open_token_idx ON playbook_proposals (token_id) WHERE status = 'open';
