-- What an MCP session's client declared at initialize (the capabilities a downstream may use:
-- elicitation, sampling, roots) and the log level it set with logging/setLevel live in the
-- session row, so every replica serving the session knows them, not only the one that handled
-- initialize or logging/setLevel.
ALTER TABLE mcp_sessions
    ADD COLUMN client_caps text[] NOT NULL DEFAULT '{}',
    ADD COLUMN log_level text NOT NULL DEFAULT '';

-- A level set on one replica drops the cached session on the others.
DROP TRIGGER mcp_sessions_notify_update ON mcp_sessions;
CREATE TRIGGER mcp_sessions_notify_update AFTER UPDATE ON mcp_sessions
    FOR EACH ROW
    WHEN ((OLD.id, OLD.workspace_root, OLD.deck_id, OLD.badge, OLD.client_name, OLD.profile, OLD.scope,
           OLD.terminated_at, OLD.log_level)
          IS DISTINCT FROM (NEW.id, NEW.workspace_root, NEW.deck_id, NEW.badge, NEW.client_name, NEW.profile,
           NEW.scope, NEW.terminated_at, NEW.log_level))
    EXECUTE FUNCTION agent_deck_notify_row();
