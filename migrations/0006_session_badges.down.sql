DROP INDEX mcp_sessions_token_live_idx;
DROP TRIGGER mcp_sessions_badge_levels ON mcp_sessions;
DROP FUNCTION agent_deck_count_badge_levels();
DROP TABLE mcp_badge_levels;
DROP FUNCTION agent_deck_badge_level(text);
