-- Change notifications for per-replica caches: every write that can change what a request sees
-- (token revocation, session binding or termination, service, credential, playbook, deck and
-- deck link changes) sends pg_notify('agent_deck_changes', '<table>:<id>') at commit, so other
-- replicas drop their cached copies within milliseconds. Last-used / last-seen touches alone
-- notify nothing: they change nothing a cache serves.

CREATE FUNCTION agent_deck_notify_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    PERFORM pg_notify('agent_deck_changes', TG_TABLE_NAME || ':' || r.id::text);
    IF TG_OP = 'UPDATE' AND OLD.id IS DISTINCT FROM NEW.id THEN
        PERFORM pg_notify('agent_deck_changes', TG_TABLE_NAME || ':' || OLD.id::text);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION agent_deck_notify_deck_card() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('agent_deck_changes', 'deck_cards:' || OLD.deck_id::text);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('agent_deck_changes', 'deck_cards:' || NEW.deck_id::text);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER decks_notify AFTER INSERT OR UPDATE OR DELETE ON decks
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER credentials_notify AFTER INSERT OR UPDATE OR DELETE ON credentials
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER services_notify AFTER INSERT OR UPDATE OR DELETE ON services
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER playbooks_notify AFTER INSERT OR UPDATE OR DELETE ON playbooks
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER deck_cards_notify AFTER INSERT OR UPDATE OR DELETE ON deck_cards
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_deck_card();

CREATE TRIGGER tokens_notify AFTER INSERT OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER tokens_notify_update AFTER UPDATE ON tokens
    FOR EACH ROW
    WHEN ((OLD.id, OLD.name, OLD.scope, OLD.hash, OLD.revoked_at)
          IS DISTINCT FROM (NEW.id, NEW.name, NEW.scope, NEW.hash, NEW.revoked_at))
    EXECUTE FUNCTION agent_deck_notify_row();

CREATE TRIGGER mcp_sessions_notify AFTER INSERT OR DELETE ON mcp_sessions
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER mcp_sessions_notify_update AFTER UPDATE ON mcp_sessions
    FOR EACH ROW
    WHEN ((OLD.id, OLD.workspace_root, OLD.deck_id, OLD.badge, OLD.client_name, OLD.profile, OLD.scope,
           OLD.terminated_at)
          IS DISTINCT FROM (NEW.id, NEW.workspace_root, NEW.deck_id, NEW.badge, NEW.client_name, NEW.profile,
           NEW.scope, NEW.terminated_at))
    EXECUTE FUNCTION agent_deck_notify_row();
