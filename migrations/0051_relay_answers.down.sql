DROP TABLE mcp_relay_answers;
