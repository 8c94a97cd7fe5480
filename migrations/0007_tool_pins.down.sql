DROP TABLE service_tool_pins;
DROP FUNCTION agent_deck_notify_tool_pin();
ALTER TABLE services
    DROP COLUMN tools_pinned_at,
    DROP COLUMN pin_tools;
