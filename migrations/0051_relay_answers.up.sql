-- A client's answer to a request the hub sent it on a downstream's behalf (elicitation,
-- sampling, roots) may reach any replica. The replica that sent the request named itself in the
-- request's id; another replica that receives the answer leaves it here and notifies
-- 'agent_deck_relay' with the sender's name, and the sender takes it. Rows live seconds; a
-- sender that died leaves rows a later take of anyone's sweeps after a minute.
CREATE TABLE mcp_relay_answers (
    id          bigserial PRIMARY KEY,
    replica     text NOT NULL,
    session_id  text NOT NULL,
    request_id  text NOT NULL,
    body        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_relay_answers_replica ON mcp_relay_answers (replica);
