-- One view of what is held: every definition of a service's tool that a connection (the
-- service's own credential, a deck's own credential, on any replica) found differing from its
-- pin, or new, kept so that `service tools`, `service approve`, REST and the dashboard show the
-- same holds, and approve pins exactly the definition shown, by its hash.
CREATE TABLE service_tool_holds (
    service_id  uuid        NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    tool_name   text        NOT NULL CONSTRAINT service_tool_holds_tool_name_check CHECK (tool_name <> ''),
    -- sha256 (hex) of definition, as for service_tool_pins.
    hash        text        NOT NULL CONSTRAINT service_tool_holds_hash_check CHECK (hash <> ''),
    definition  text        NOT NULL,
    -- which connection saw it: "service credential" or "deck credential <credential id>".
    seen_on     text        NOT NULL,
    first_seen  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, tool_name, hash, seen_on)
);
