-- URL userinfo (user:password@) is a secret: it is kept out of services.url, sealed here, and
-- sent as basic auth at egress.
ALTER TABLE services ADD COLUMN sealed_userinfo bytea;
