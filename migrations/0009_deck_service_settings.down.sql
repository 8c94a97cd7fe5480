DROP TABLE deck_service_settings;
