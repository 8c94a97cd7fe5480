-- A session belongs to the token that opened it: another token holding its id is refused.
-- Sessions opened before this migration have no owner and stay usable by any token.
ALTER TABLE mcp_sessions ADD COLUMN token_id uuid REFERENCES tokens (id) ON DELETE SET NULL;
