-- Per-tool overrides a person sets on a service: title, description and annotations that agents
-- see instead of the downstream's own (pins keep comparing the downstream's own definition).
-- A JSON object keyed by tool name.
ALTER TABLE services ADD COLUMN tool_overrides jsonb NOT NULL DEFAULT '{}';
