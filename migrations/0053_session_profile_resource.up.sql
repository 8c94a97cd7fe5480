-- A session on the resource profile records resource, so it reports the profile it was opened
-- with (session get, the sessions list, /metrics), not standard, the profile of its size.
ALTER TABLE mcp_sessions DROP CONSTRAINT mcp_sessions_profile_check;
ALTER TABLE mcp_sessions ADD CONSTRAINT mcp_sessions_profile_check
    CHECK (profile IN ('runtime', 'standard', 'resource', 'legacy'));
