ALTER TABLE services DROP COLUMN talks_back;
