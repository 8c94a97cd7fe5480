-- Back to the three profiles of 0001: a resource session is recorded as standard, its size.
ALTER TABLE mcp_sessions DROP CONSTRAINT mcp_sessions_profile_check;
UPDATE mcp_sessions SET profile = 'standard' WHERE profile = 'resource';
ALTER TABLE mcp_sessions ADD CONSTRAINT mcp_sessions_profile_check
    CHECK (profile IN ('runtime', 'standard', 'legacy'));
