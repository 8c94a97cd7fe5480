DROP TABLE deck_tool_projection;
