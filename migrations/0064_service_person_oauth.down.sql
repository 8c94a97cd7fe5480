DROP TABLE IF EXISTS service_person_oauth;
