-- Projected tools (opt-in per deck): a bound session's tools/list also carries the deck's enabled
-- downstream tools as tools of their own, <service>__<tool>, up to a cap of tools and of model
-- tokens. A row turns projection on for its deck; no row means off.
CREATE TABLE deck_tool_projection (
    deck_id    uuid        PRIMARY KEY REFERENCES decks (id) ON DELETE CASCADE,
    max_tools  integer     NOT NULL CONSTRAINT deck_tool_projection_max_tools_check CHECK (max_tools BETWEEN 1 AND 1000),
    max_tokens integer     NOT NULL CONSTRAINT deck_tool_projection_max_tokens_check CHECK (max_tokens BETWEEN 100 AND 1000000),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- What a deck projects is part of what its sessions see: announce every change as a change of the
-- deck's cards, so every replica drops what it cached of the deck and re-lists its sessions' tools.
CREATE TRIGGER deck_tool_projection_notify AFTER INSERT OR UPDATE OR DELETE ON deck_tool_projection
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_deck_card();
