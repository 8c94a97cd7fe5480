ALTER TABLE mcp_sessions DROP COLUMN token_id;
