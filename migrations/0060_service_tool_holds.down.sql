DROP TABLE service_tool_holds;
