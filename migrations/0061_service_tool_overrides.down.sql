ALTER TABLE services DROP COLUMN tool_overrides;
