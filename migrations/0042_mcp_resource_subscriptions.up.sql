-- resources/subscribe of an MCP session: which of the hub's resources (a playbook's body) the
-- session wants notifications/resources/updated for. Kept in the database, not in one replica's
-- memory: a person may edit the playbook through any replica, and the replica that holds the
-- session's stream sends the notification. Rows go with their session. One row per session and
-- playbook, by the URI last subscribed with: a playbook has many spellings (id, title, escapes),
-- and a session must not grow rows without end by subscribing to each.
CREATE TABLE mcp_resource_subscriptions (
    session_id  text        NOT NULL REFERENCES mcp_sessions (id) ON DELETE CASCADE,
    uri         text        NOT NULL CONSTRAINT mcp_resource_subscriptions_uri_check CHECK (uri <> ''),
    playbook_id text        NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE ON UPDATE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, playbook_id)
);
CREATE INDEX mcp_resource_subscriptions_playbook_id_idx ON mcp_resource_subscriptions (playbook_id);
