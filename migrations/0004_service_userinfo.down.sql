ALTER TABLE services DROP COLUMN sealed_userinfo;
