DROP TABLE IF EXISTS service_oauth;
DROP FUNCTION IF EXISTS agent_deck_notify_service_oauth();
