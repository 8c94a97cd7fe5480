-- A downstream server that was seen asking something the proxy could not attribute to one call
-- (or asking for roots) "talks back": its calls from different agent sessions take turns, so
-- that every later question has one session to go to. Learned once per service, kept here so
-- every replica and every restart knows it from the first call.
ALTER TABLE services ADD COLUMN talks_back boolean NOT NULL DEFAULT false;
