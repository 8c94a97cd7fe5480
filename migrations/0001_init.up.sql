-- Agent Deck schema: the collection (services, credentials, playbooks), decks and their card
-- links, playbook history, API tokens, MCP sessions and the exec audit trail.
-- Names people and agents type are unique case-insensitively; enums are CHECKed here, not only
-- in Go.

CREATE TABLE decks (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text        NOT NULL CONSTRAINT decks_name_check CHECK (btrim(name) <> ''),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX decks_name_key ON decks (lower(name));

CREATE TABLE credentials (
    id             text        PRIMARY KEY CONSTRAINT credentials_id_check CHECK (btrim(id) <> ''),
    label          text        NOT NULL CONSTRAINT credentials_label_check CHECK (btrim(label) <> ''),
    scheme         text        NOT NULL DEFAULT 'bearer'
                   CONSTRAINT credentials_scheme_check CHECK (scheme IN ('bearer', 'header', 'http_basic_user')),
    header_name    text        NOT NULL DEFAULT '',
    env_name       text        NOT NULL CONSTRAINT credentials_env_name_check CHECK (btrim(env_name) <> ''),
    tags           text[]      NOT NULL DEFAULT '{}',
    docs_url       text        NOT NULL DEFAULT '',
    -- AES-256-GCM; NULL until a secret is set (an imported credential has none).
    sealed_secret  bytea,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT credentials_header_name_check CHECK (scheme <> 'header' OR btrim(header_name) <> '')
);
CREATE UNIQUE INDEX credentials_label_key ON credentials (lower(label));

CREATE TABLE services (
    id                      uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name                    text        NOT NULL CONSTRAINT services_name_check CHECK (btrim(name) <> ''),
    type                    text        NOT NULL CONSTRAINT services_type_check CHECK (type IN ('mcp', 'local-mcp')),
    url                     text        NOT NULL DEFAULT '',
    transport               text        NOT NULL DEFAULT 'auto'
                            CONSTRAINT services_transport_check CHECK (transport IN ('auto', 'streamable_http', 'sse')),
    description             text        NOT NULL DEFAULT '',
    -- Headers whose names do not look secret, in clear; the others sealed as one JSON map.
    headers                 jsonb       NOT NULL DEFAULT '{}'
                            CONSTRAINT services_headers_check CHECK (jsonb_typeof(headers) = 'object'),
    sealed_headers          bytea,
    -- A deleted credential leaves the service without auth rather than blocking the delete.
    credential_id           text        REFERENCES credentials (id) ON DELETE SET NULL ON UPDATE CASCADE,
    local_command           text        NOT NULL DEFAULT '',
    local_args              text[]      NOT NULL DEFAULT '{}',
    local_working_dir       text        NOT NULL DEFAULT '',
    sealed_env              bytea,
    disabled_tools          text[]      NOT NULL DEFAULT '{}',
    -- 0 means the server's default timeout.
    timeout_seconds         integer     NOT NULL DEFAULT 0
                            CONSTRAINT services_timeout_seconds_check CHECK (timeout_seconds >= 0),
    health_status           text        NOT NULL DEFAULT 'unknown'
                            CONSTRAINT services_health_status_check
                            CHECK (health_status IN ('unknown', 'healthy', 'unhealthy', 'auth_required')),
    health_last_error       text        NOT NULL DEFAULT '',
    health_last_success_at  timestamptz,
    health_last_checked_at  timestamptz,
    health_stderr           text        NOT NULL DEFAULT '',
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT services_url_check CHECK (type <> 'mcp' OR btrim(url) <> ''),
    CONSTRAINT services_local_command_check CHECK (type <> 'local-mcp' OR btrim(local_command) <> '')
);
CREATE UNIQUE INDEX services_name_key ON services (lower(name));
CREATE INDEX services_credential_id_idx ON services (credential_id);

CREATE TABLE playbooks (
    id                         text        PRIMARY KEY CONSTRAINT playbooks_id_check CHECK (btrim(id) <> ''),
    title                      text        NOT NULL CONSTRAINT playbooks_title_check CHECK (btrim(title) <> ''),
    body                       text        NOT NULL DEFAULT '',
    triggers                   text[]      NOT NULL DEFAULT '{}'
                               CONSTRAINT playbooks_triggers_check CHECK (cardinality(triggers) <= 16),
    exec                       text        NOT NULL DEFAULT '',
    skill                      text        NOT NULL DEFAULT '',
    -- Declared dependencies; unknown ids are kept (and reported), so no foreign keys here.
    depends_on_credential_ids  text[]      NOT NULL DEFAULT '{}',
    depends_on_service_ids     text[]      NOT NULL DEFAULT '{}',
    -- Last version number handed out; bumping it locks the row, so versions never collide.
    version_seq                integer     NOT NULL DEFAULT 0,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX playbooks_title_key ON playbooks (lower(title));
CREATE INDEX playbooks_depends_on_credential_ids_idx ON playbooks USING gin (depends_on_credential_ids);
CREATE INDEX playbooks_depends_on_service_ids_idx ON playbooks USING gin (depends_on_service_ids);

CREATE TABLE playbook_versions (
    playbook_id  text        NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE ON UPDATE CASCADE,
    version      integer     NOT NULL CONSTRAINT playbook_versions_version_check CHECK (version > 0),
    snapshot     jsonb       NOT NULL,
    actor        text        NOT NULL CONSTRAINT playbook_versions_actor_check CHECK (actor IN ('user', 'agent')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (playbook_id, version)
);

-- One row per card on a deck. Exactly the id column matching card_type is set, each a real
-- foreign key, so deleting a card removes its links and deleting a deck never touches cards.
CREATE TABLE deck_cards (
    deck_id        uuid    NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    card_type      text    NOT NULL CONSTRAINT deck_cards_card_type_check
                           CHECK (card_type IN ('service', 'credential', 'playbook')),
    service_id     uuid    REFERENCES services (id) ON DELETE CASCADE,
    credential_id  text    REFERENCES credentials (id) ON DELETE CASCADE ON UPDATE CASCADE,
    playbook_id    text    REFERENCES playbooks (id) ON DELETE CASCADE ON UPDATE CASCADE,
    card_id        text    NOT NULL GENERATED ALWAYS AS (COALESCE(service_id::text, credential_id, playbook_id)) STORED,
    position       integer NOT NULL CONSTRAINT deck_cards_position_check CHECK (position >= 0),
    CONSTRAINT deck_cards_card_check CHECK (
        (card_type = 'service') = (service_id IS NOT NULL)
        AND (card_type = 'credential') = (credential_id IS NOT NULL)
        AND (card_type = 'playbook') = (playbook_id IS NOT NULL)),
    CONSTRAINT deck_cards_pkey PRIMARY KEY (deck_id, card_type, card_id),
    CONSTRAINT deck_cards_position_key UNIQUE (deck_id, card_type, position) DEFERRABLE INITIALLY IMMEDIATE
);
CREATE INDEX deck_cards_service_id_idx ON deck_cards (service_id) WHERE service_id IS NOT NULL;
CREATE INDEX deck_cards_credential_id_idx ON deck_cards (credential_id) WHERE credential_id IS NOT NULL;
CREATE INDEX deck_cards_playbook_id_idx ON deck_cards (playbook_id) WHERE playbook_id IS NOT NULL;
CREATE INDEX deck_cards_card_idx ON deck_cards (card_type, card_id);

CREATE TABLE tokens (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name          text        NOT NULL CONSTRAINT tokens_name_check CHECK (btrim(name) <> ''),
    scope         text        NOT NULL CONSTRAINT tokens_scope_check CHECK (scope IN ('admin', 'agent', 'agent:read')),
    -- sha256 of the secret; the secret itself is never stored.
    hash          bytea       NOT NULL CONSTRAINT tokens_hash_check CHECK (length(hash) = 32),
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz,
    CONSTRAINT tokens_hash_key UNIQUE (hash)
);

CREATE TABLE mcp_sessions (
    id              text        PRIMARY KEY CONSTRAINT mcp_sessions_id_check CHECK (btrim(id) <> ''),
    workspace_root  text        NOT NULL DEFAULT '',
    deck_id         uuid        REFERENCES decks (id) ON DELETE SET NULL,
    badge           text        NOT NULL CONSTRAINT mcp_sessions_badge_check CHECK (btrim(badge) <> ''),
    client_name     text        NOT NULL DEFAULT '',
    profile         text        NOT NULL CONSTRAINT mcp_sessions_profile_check
                                CHECK (profile IN ('runtime', 'standard', 'legacy')),
    scope           text        NOT NULL CONSTRAINT mcp_sessions_scope_check
                                CHECK (scope IN ('admin', 'agent', 'agent:read')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_seen_at    timestamptz NOT NULL DEFAULT now(),
    terminated_at   timestamptz
);
-- A badge names one live session at a time.
CREATE UNIQUE INDEX mcp_sessions_badge_key ON mcp_sessions (badge) WHERE terminated_at IS NULL;
CREATE INDEX mcp_sessions_live_idx ON mcp_sessions (last_seen_at) WHERE terminated_at IS NULL;
CREATE INDEX mcp_sessions_workspace_root_idx ON mcp_sessions (workspace_root) WHERE terminated_at IS NULL;

CREATE TABLE exec_audit (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Kept even after a credential is deleted: the audit outlives the cards it names.
    credential_ids  text[]      NOT NULL DEFAULT '{}',
    deck_id         uuid        REFERENCES decks (id) ON DELETE SET NULL,
    command         text[]      NOT NULL CONSTRAINT exec_audit_command_check CHECK (cardinality(command) > 0),
    exit_code       integer,
    token_id        uuid        REFERENCES tokens (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz
);
