-- Tool-definition pinning (rug-pull protection). A downstream tool's definition (its raw tools/list
-- object minus _meta) is pinned the first time the deck reaches the service (trust on first use)
-- or when an admin approves it; a definition that no longer matches its pin is held until an admin
-- approves it again. The pinned definition is kept so a refusal can say what changed.
--
-- pin_tools turns pinning off for servers the user trusts to change. tools_pinned_at marks the
-- first contact: before it every tool is trusted on first use, after it a tool without a pin is
-- new and held.
ALTER TABLE services
    ADD COLUMN pin_tools       boolean     NOT NULL DEFAULT true,
    ADD COLUMN tools_pinned_at timestamptz;

CREATE TABLE service_tool_pins (
    service_id   uuid        NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    tool_name    text        NOT NULL CONSTRAINT service_tool_pins_tool_name_check CHECK (tool_name <> ''),
    -- sha256 (hex) of definition, the tool's canonical JSON as the core computed it. Kept as text,
    -- not jsonb: byte for byte what was hashed, and jsonb refuses some valid JSON (\u0000).
    hash         text        NOT NULL CONSTRAINT service_tool_pins_hash_check CHECK (hash <> ''),
    definition   text        NOT NULL,
    approved_at  timestamptz NOT NULL DEFAULT now(),
    -- "first use" or who approved: "admin" and the token id when there is one.
    approved_by  text        NOT NULL DEFAULT '',
    PRIMARY KEY (service_id, tool_name)
);

-- Replicas cache pins per service: announce every change as service_tool_pins:<service id>.
CREATE FUNCTION agent_deck_notify_tool_pin() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    PERFORM pg_notify('agent_deck_changes', 'service_tool_pins:' || r.service_id::text);
    RETURN NULL;
END $$;

CREATE TRIGGER service_tool_pins_notify AFTER INSERT OR UPDATE OR DELETE ON service_tool_pins
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_tool_pin();
