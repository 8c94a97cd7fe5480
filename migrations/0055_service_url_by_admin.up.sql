-- Whether an admin set a service's URL: only then may its host resolve to a private-range
-- address (the proxy checks every address it dials against the rules of literal addresses).
-- Services saved before this column were registered under the old rule, which refused private
-- literal addresses to agents but read names as text; they keep working as they did (true), and
-- any URL saved from now on records who set it.
ALTER TABLE services ADD COLUMN url_by_admin boolean NOT NULL DEFAULT true;
ALTER TABLE services ALTER COLUMN url_by_admin SET DEFAULT false;
