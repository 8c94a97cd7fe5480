-- Opening an MCP session without listing the live ones.
--
-- Badges come from a fixed pool of words (backend/badge.go): level 1 is the plain word, level n
-- the word with the suffix n, used only once every badge of the levels below is taken.
-- mcp_badge_levels counts the live sessions holding a badge of each level, kept by a trigger, so
-- an open reads the levels in order up to the first with a free word (one row per pool's worth
-- of live sessions: 10 rows at 2,000) and probes at most that level's badges against
-- mcp_sessions_badge_key, instead of reading every live session.
CREATE FUNCTION agent_deck_badge_level(badge text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT GREATEST(COALESCE(substring(badge FROM '[0-9]{1,6}$')::integer, 1), 1)
$$;

-- live is in no index and the pages keep room, so its updates stay HOT (no index or table bloat
-- from a row every open and close updates).
CREATE TABLE mcp_badge_levels (
    level  integer PRIMARY KEY CONSTRAINT mcp_badge_levels_level_check CHECK (level >= 1),
    live   integer NOT NULL DEFAULT 0 CONSTRAINT mcp_badge_levels_live_check CHECK (live >= 0)
) WITH (fillfactor = 50);

INSERT INTO mcp_badge_levels (level, live)
    SELECT agent_deck_badge_level(badge), count(*) FROM mcp_sessions
    WHERE terminated_at IS NULL GROUP BY 1;

CREATE FUNCTION agent_deck_count_badge_levels() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.terminated_at IS NULL THEN
        UPDATE mcp_badge_levels SET live = live - 1 WHERE level = agent_deck_badge_level(OLD.badge);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.terminated_at IS NULL THEN
        INSERT INTO mcp_badge_levels AS l (level, live) VALUES (agent_deck_badge_level(NEW.badge), 1)
        ON CONFLICT (level) DO UPDATE SET live = l.live + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER mcp_sessions_badge_levels
    AFTER INSERT OR DELETE OR UPDATE OF badge, terminated_at ON mcp_sessions
    FOR EACH ROW EXECUTE FUNCTION agent_deck_count_badge_levels();

-- A token's live sessions by recency, for the per-token cap (least recently seen expire first).
CREATE INDEX mcp_sessions_token_live_idx ON mcp_sessions (token_id, last_seen_at)
    WHERE terminated_at IS NULL;
