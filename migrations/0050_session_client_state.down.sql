DROP TRIGGER mcp_sessions_notify_update ON mcp_sessions;
CREATE TRIGGER mcp_sessions_notify_update AFTER UPDATE ON mcp_sessions
    FOR EACH ROW
    WHEN ((OLD.id, OLD.workspace_root, OLD.deck_id, OLD.badge, OLD.client_name, OLD.profile, OLD.scope,
           OLD.terminated_at)
          IS DISTINCT FROM (NEW.id, NEW.workspace_root, NEW.deck_id, NEW.badge, NEW.client_name, NEW.profile,
           NEW.scope, NEW.terminated_at))
    EXECUTE FUNCTION agent_deck_notify_row();

ALTER TABLE mcp_sessions DROP COLUMN client_caps, DROP COLUMN log_level;
