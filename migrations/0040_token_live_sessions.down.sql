DROP TRIGGER mcp_sessions_token_live ON mcp_sessions;
DROP FUNCTION agent_deck_count_token_live();
DROP TABLE mcp_token_live;
DROP INDEX mcp_sessions_token_live_idx;
CREATE INDEX mcp_sessions_token_live_idx ON mcp_sessions (token_id, last_seen_at)
    WHERE terminated_at IS NULL;
