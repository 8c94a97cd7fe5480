DROP TABLE deck_audit_settings;
DROP TABLE tool_calls;
