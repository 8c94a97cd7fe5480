ALTER TABLE services DROP COLUMN IF EXISTS url_by_admin;
