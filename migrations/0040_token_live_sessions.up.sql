-- Opening an MCP session without reading the token's other sessions.
--
-- The per-token cap (MaxSessionsPerToken) expired the least recently seen sessions past the
-- cap with an OFFSET over the token's live sessions, which read every one of them: opening a
-- session got slower as one token held more. mcp_token_live counts each token's live sessions,
-- kept by a trigger like mcp_badge_levels, so an open reads one counter and, only when the
-- token is over its cap, the few oldest sessions it expires (mcp_sessions_token_live_idx).
CREATE TABLE mcp_token_live (
    token_id uuid    PRIMARY KEY REFERENCES tokens (id) ON DELETE CASCADE,
    live     integer NOT NULL DEFAULT 0 CONSTRAINT mcp_token_live_live_check CHECK (live >= 0)
) WITH (fillfactor = 50);

INSERT INTO mcp_token_live (token_id, live)
    SELECT token_id, count(*) FROM mcp_sessions
    WHERE terminated_at IS NULL AND token_id IS NOT NULL GROUP BY 1;

CREATE FUNCTION agent_deck_count_token_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.terminated_at IS NULL AND OLD.token_id IS NOT NULL THEN
        UPDATE mcp_token_live SET live = live - 1 WHERE token_id = OLD.token_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.terminated_at IS NULL AND NEW.token_id IS NOT NULL THEN
        INSERT INTO mcp_token_live AS l (token_id, live) VALUES (NEW.token_id, 1)
        ON CONFLICT (token_id) DO UPDATE SET live = l.live + 1;
    END IF;
    RETURN NULL;
END $$;

-- The sessions it expires, oldest first, in the order of the index: the scan stops after them.
DROP INDEX mcp_sessions_token_live_idx;
CREATE INDEX mcp_sessions_token_live_idx ON mcp_sessions (token_id, last_seen_at, created_at, id)
    WHERE terminated_at IS NULL;

CREATE TRIGGER mcp_sessions_token_live
    AFTER INSERT OR DELETE OR UPDATE OF token_id, terminated_at ON mcp_sessions
    FOR EACH ROW EXECUTE FUNCTION agent_deck_count_token_live();
